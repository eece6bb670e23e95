"""The small real sets (configs/paper/small-runs.yaml): the papers' experiments at the scale this
kind of machine holds without oversubscription, each with a committed archive run that a
regenerated run is judged against (equivalence.py).

    archive      results/reproduce/archive/<set>/     (committed; `reproduce --make-archive SET`:
                                                       summaries and metadata, compressed; seal())
    regenerated  results/reproduce/small/<set>/       (not committed; `reproduce FIGURE` makes it)

Both are bench/collrun runs of the same command; collrun resumes an interrupted run (complete
launches are kept), so neither is ever half-written.
"""

import os
from pathlib import Path

from collrepro import safeio
from collrepro.safeio import UserError

from .sets import REPO, metas

RUNS = REPO / "configs" / "paper" / "small-runs.yaml"
ARCHIVE_ROOT = REPO / "results" / "reproduce" / "archive"
REQUIRED = {"what", "config", "np", "mpi", "launches"}
FIELDS = REQUIRED | {"args"}
LIMIT = safeio.MIB
MAX_NP = 64            # a small set; more is a cluster's job
MAX_LAUNCHES = 100


def load_runs(path=RUNS):
    """{name: run} from the small sets' file; UserError with one line naming the field and the fix."""
    runs = safeio.load_yaml_file(path, LIMIT, "the small sets file") or {}
    if not isinstance(runs, dict):
        raise UserError(f"{path}: want a map of set names to sets, found {type(runs).__name__}")
    for name, run in runs.items():
        where = f"{path}: {safeio.excerpt(name)}"
        if not isinstance(run, dict):
            raise UserError(f"{where}: want a map of {', '.join(sorted(REQUIRED))} (and args)")
        unknown, missing = set(map(str, run)) - FIELDS, REQUIRED - set(run)
        if unknown or missing:
            raise UserError(f"{where}: unknown field(s) {sorted(unknown)}, missing {sorted(missing)}")
        for field, top in (("np", MAX_NP), ("launches", MAX_LAUNCHES)):
            if not isinstance(run[field], int) or isinstance(run[field], bool) or not 2 <= run[field] <= top:
                raise UserError(f"{where}.{field} {run[field]!r}: want a whole number from 2 to {top}")
        if not (REPO / "configs" / "paper" / str(run["config"])).is_file():
            raise UserError(f"{where}.config {run['config']!r}: no such file in configs/paper/")
        if not isinstance(run.get("args", []), list) or not all(isinstance(x, str) for x in run.get("args", [])):
            raise UserError(f"{where}.args: want a list of words passed on to collbench (e.g. [--set, 'sizes=[1MiB]'])")
    return runs


def archive_dir(name, root=ARCHIVE_ROOT):
    return Path(root) / name


def regenerated_dir(out, name):
    return Path(out) / "small" / name


def command(name, run, out):
    """The collrun command line (argv after bench/collrun) that runs the set into OUT."""
    return (["--mpi", run["mpi"], "--np", str(run["np"]), "--launches", str(run["launches"]), "--out", str(out),
             str(Path("configs") / "paper" / run["config"]), "--", "--quiet"] + list(run.get("args", [])))


def command_text(name, run, out):
    return "bench/collrun " + " ".join(_quoted(w) for w in command(name, run, os.path.relpath(out, REPO)))


def _quoted(word):
    return f"'{word}'" if any(c in word for c in " []\"'*") else word


def complete_launches(directory):
    """How many launches of a run directory finished (their metadata says complete)."""
    return sum(1 for m in metas(directory) if m.get("complete"))


def seal(directory):
    """An archive as committed: the launches' summaries and metadata, compressed (collrepro-py
    compact: each file verified before its original goes); the raw repetitions removed (tens of MB
    for seed 004; the test reads the per-launch medians of the summaries, collbench's own)."""
    from collrepro import compact
    directory = Path(directory)
    for raw in sorted(directory.glob("raw-L*.csv*")):
        raw.unlink()
    return compact.main([str(directory)])


def run(name, run_, out, build_dir=None):
    """Run (or resume) the set into OUT with collrun; its exit code."""
    from collrepro.launch import collrun
    argv = command(name, run_, out)
    if build_dir:
        argv = ["--build-dir", str(build_dir)] + argv
    cwd = os.getcwd()
    try:
        os.chdir(REPO)                     # the config path is the repository's
        return collrun.collrun(argv)
    finally:
        os.chdir(cwd)
