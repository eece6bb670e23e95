"""bench/sim/paper: run one of the papers' configurations at full scale in simulation.

  bench/sim/paper [--platform cori-memory] [--jobs N] [--build-dir build/smpi] [--simgrid auto]
                  [--dry-run] NAME...
  bench/sim/paper --list

The runs are data (configs/paper/sim-runs.yaml): each names a config, the process count, the
processes per node and the fold threshold. A run writes results/sim/NAME-<platform>/ with
simrun (contiguous placement), then the paper's figures into its figures/ directory. An
interrupted run continues where it stopped when started again (collbench skips the points
already on disk). --platform: cori-memory (default: Cori's nodes, whose processes share the
node's memory and NIC, on a contention-free network; made for the run's shape by
python/collrepro/sim/platforms/node_memory.py), flat-crossbar (the papers' contention-free model),
cori-effects (Cori's dragonfly with a shared NIC, per-message costs and scaled global links),
dragonfly-adaptive (that topology without them: indistinguishable from the crossbar at the
papers' shapes) or cori-dragonfly (SimGrid's minimal routing, the congested case). cori-memory
is the default because of the models tried it reproduces seed 000's measured speedups best at
both of its shapes (results/sim/README.md, "Which platform"). A run with `slices` runs them as separate simulations, --jobs at a
time (default: one per core): same numbers, a fraction of the wall time. --simgrid: as simrun's
(auto: the fast SimGrid 3.32 of `collrepro-py sim simgrid build` when built, the same numbers,
2.6 times faster on seed 001 setting 1 at 2048 x 32; else Debian's)."""

import os
import subprocess
import sys
import tempfile
import time

from collrepro import paths, safeio
from collrepro.cliargs import ArgumentParser
from collrepro.safeio import UserError
from collrepro.sim.platforms import node_memory
from collrepro.sim.running import run as simrun  # the command this one drives

REPO = paths.REPO
RUNS = os.path.join(REPO, "configs", "paper", "sim-runs.yaml")
PLATFORMS = ("flat-crossbar", "cori-memory", "cori-effects", "dragonfly-adaptive", "cori-dragonfly")
REQUIRED = {"config", "np", "ppn", "fold", "figure"}
FIELDS = REQUIRED | {"what", "args", "slices"}
RUNS_LIMIT = 1 * safeio.MIB  # the runs file is a few KiB


def load_runs(path=RUNS):
    """{name: run} from the runs file; UserError with one line naming what is wrong."""
    runs = safeio.load_yaml_file(path, RUNS_LIMIT, "the simulation runs file") or {}
    if not isinstance(runs, dict):
        raise UserError(f"{path}: want a map of run names to runs, found {type(runs).__name__}")
    for name, run in runs.items():
        if not isinstance(run, dict):
            raise UserError(f"{path}: {safeio.excerpt(name)}: want a map of fields ({', '.join(sorted(REQUIRED))})")
        unknown = set(map(str, run)) - FIELDS
        missing = REQUIRED - set(run)
        if unknown or missing:
            raise UserError(f"{path}: {safeio.excerpt(name)}: unknown field(s) {sorted(unknown)}, "
                            f"missing {sorted(missing)}")
        if not all(isinstance(run[k], (str, int)) for k in REQUIRED) or not isinstance(run.get("args", []), list):
            raise UserError(f"{path}: {safeio.excerpt(name)}: config, np, ppn, fold and figure are single values, "
                            "args a list")
    return runs


def platform_path(platform, run, build_dir):
    """(platform file, ppn to give simrun). cori-memory is made for the run's shape (its hosts are
    cores: one rank per host) into BUILD_DIR/platforms/ by python/collrepro/sim/platforms/node_memory.py;
    the others are the committed configs/platforms/<name>.xml."""
    if platform != "cori-memory":
        return os.path.join(REPO, "configs", "platforms", platform + ".xml"), run["ppn"]
    nodes, cores = node_memory.node_shape(run["np"], run["ppn"])
    return os.path.join(build_dir, "platforms", f"cori-memory-{nodes}x{cores}.xml"), 1


def write_generated_platform(platform, run, build_dir):
    """Write cori-memory's file for the run's shape (the generator is deterministic)."""
    path, _ = platform_path(platform, run, build_dir)
    if platform == "cori-memory":
        node_memory.write_for_job(path, run["np"], run["ppn"], node_memory.CORI_MEM_GBPS)
    return path


OUT_ROOT = os.path.join(REPO, "results", "sim")


def simrun_argv(name, run, platform, build_dir, jobs=1, simgrid="auto", out_root=OUT_ROOT):
    """simrun's command line for one run on one platform, and its result directory (OUT_ROOT/NAME-PLATFORM)."""
    out = os.path.join(out_root, f"{name}-{platform}")
    path, ppn = platform_path(platform, run, build_dir)
    argv = ["--platform", path,
            "--np", str(run["np"]), "--ppn", str(ppn), "--fold", run["fold"], "--order", "block",
            "--build-dir", build_dir, "--out", out, "--simgrid", simgrid]
    if "slices" in run:
        argv += ["--slices", str(run["slices"]), "--jobs", str(jobs)]
    argv.append(os.path.join(REPO, "configs", "paper", run["config"]))
    extra = [str(a) for a in run.get("args", [])]
    if platform == "cori-dragonfly":  # its repetitions differ by up to 13% (results/sim/README.md)
        extra += ["--set", "timing.reps=3"]
    return argv + (["--"] + extra if extra else []), out


def figures(run, out):
    """The paper's figures from the run's CSV, into OUT/figures."""
    cmd = [os.path.join(REPO, "analysis", "analyze"), "figure", run["figure"], out, "-o", os.path.join(out, "figures")]
    return subprocess.call(cmd)


def offer_hugepages():
    """As root, set huge pages up for folding (bench/sim/hugepages) unless they are there."""
    if os.geteuid() == 0 and simrun.hugepage_mount()[0] is None:
        subprocess.call([os.path.join(REPO, "bench", "sim", "hugepages")])


def run_one(name, run, a):
    """Simulate one run (or with --dry-run print its command), then draw its figures."""
    argv, out = simrun_argv(name, run, a.platform, a.build_dir, a.jobs, a.simgrid, a.out_root)
    print(f"paper: {name} on {a.platform}: {run.get('what', '')} -> {simrun.shown_path(out)}", file=sys.stderr)
    if a.dry_run:
        return dry_run(run, a, argv)
    write_generated_platform(a.platform, run, a.build_dir)
    offer_hugepages()
    t0 = time.time()
    rc = simrun.main(argv)
    print(f"paper: {name} on {a.platform}: simulation finished with code {rc} after {time.time() - t0:.0f} s of wall time",
          file=sys.stderr)
    return rc if rc != 0 else figures(run, out)


def dry_run(run, a, argv):
    """--dry-run writes nothing: simrun checks a generated platform in a temporary directory,
    removed afterwards, in place of the file a run would write."""
    if a.platform != "cori-memory":
        return simrun.main(["--dry-run"] + argv)
    path, _ = platform_path(a.platform, run, a.build_dir)
    with tempfile.TemporaryDirectory(prefix="collrepro-paper-") as tmp:
        copy = write_generated_platform(a.platform, run, tmp)
        print(f"paper: dry run: {simrun.shown_path(path)} is not written; simrun checks a temporary copy", file=sys.stderr)
        return simrun.main(["--dry-run"] + [copy if x == path else x for x in argv])


def main(argv=None):
    ap = ArgumentParser(prog="paper", description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", metavar="NAME")
    ap.add_argument("--platform", choices=PLATFORMS, default="cori-memory")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "smpi"))
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)),
                    help="simulations at once for runs cut into slices (default: one per core)")
    ap.add_argument("--simgrid", choices=["auto", "packaged", "fast"], default="auto",
                    help="the SimGrid library (bench/sim/simrun --help)")
    ap.add_argument("--dry-run", action="store_true", help="print the simrun command, run nothing")
    ap.add_argument("--list", action="store_true", help="list the runs")
    ap.add_argument("--out-root", default=OUT_ROOT, help="where NAME-PLATFORM/ goes (default results/sim; "
                    "collrepro-py reproduce regenerates into results/reproduce/sim)")
    a = ap.parse_args(argv)
    if a.jobs < 1:
        raise UserError("--jobs must be positive")
    runs = load_runs()
    if a.list:
        for name, run in runs.items():
            print(f"{name:22} {run.get('what', '')}")
        return 0
    if not a.names:
        raise UserError("give the NAME of a run (bench/sim/paper --list shows them)")
    unknown = [n for n in a.names if n not in runs]
    if unknown:
        raise UserError(f"unknown run(s) {', '.join(unknown)}: `bench/sim/paper --list` shows the names")
    for name in a.names:
        rc = run_one(name, runs[name], a)
        if rc != 0:
            return rc
    return 0

