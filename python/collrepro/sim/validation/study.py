"""A sensitivity study of the validation: the same simulations as `sim validate run`, with one
thing changed (a platform built otherwise, a cost charged, a limit added), simulated into its own
sims-<name>/ folder and compared in the README's section of its own.

A study is one file, python/collrepro/sim/validation/study_<name>.py, holding `STUDY = Study(...)`:

  name      its name (the README's runtimes and the error lines say it)
  order     where its section stands among the studies' sections
  flag      its option of `sim validate run`, e.g. "--copy-bw", with
  option    argparse's keywords for it (type, action, metavar, help); the values given, as a list
            (a flag's True, an option's value, each value of a repeatable one), go to `run`
  command   the README's line that makes it ("collrepro-py sim validate run ...")
  run       run(ctx, value) -> exit code: writes its platforms and simulates (ctx: Context)
  load      load(real, out) -> its data for the report, or None where it never ran
  section   section(points, summary, data) -> the README's lines, every number computed there
  in_all    whether `sim validate all` runs it (with no value) beside the plain simulations

`discover()` finds every study_*.py of this folder: adding a study touches that one file.
validate_command.py runs them, report.py writes their sections.
"""

import importlib
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable


@dataclass(frozen=True)
class Context:
    """What a study's run gets: the real runs, the report's folder, the experiments asked for
    (None: all) and the simulation build."""
    real: str
    out: Path
    only: list
    build_dir: Path


@dataclass(frozen=True)
class Study:
    name: str
    order: int
    flag: str
    option: dict
    command: str
    run: Callable
    load: Callable
    section: Callable
    in_all: bool = False
    dest: str = field(default="")

    def values(self, args):
        """The values `sim validate` was given for this study: [] when not asked for."""
        got = getattr(args, self.dest or self.flag.lstrip("-").replace("-", "_"), None)
        if got is None or got is False:
            return []
        return list(got) if isinstance(got, list) else [got]


PREFIX = "study_"


def discover():
    """Every study of this folder (its study_*.py files' STUDY), in their order."""
    here = Path(__file__).resolve().parent
    found = []
    for info in pkgutil.iter_modules([str(here)]):
        if info.name.startswith(PREFIX):
            module = importlib.import_module(f"{__package__}.{info.name}")
            found.append(module.STUDY)
    names = [s.name for s in found]
    if len(set(names)) != len(names):
        raise RuntimeError(f"two studies share a name: {sorted(names)}")
    return sorted(found, key=lambda s: (s.order, s.name))
