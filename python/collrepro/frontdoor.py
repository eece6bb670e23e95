"""collrepro's front door: `python3 -m collrepro VERB [ARGS...]`, one command for every tool.

Each verb is a module's command line, imported only when it runs (pandas and matplotlib load for
the verbs that use them). Every verb parses its arguments the same way (argparse: GNU long
options, `-h`/`--help`, `--` before what is passed on to collbench) and ends with a code of the
exit-code table below; every error is one line that starts with the tool's name (`collrun:`,
`analyze: error:`, ...), which is also the name its --help shows.

In a checkout the front door is `./collrepro-py`, and the older commands (bench/collrun,
analysis/analyze, ...) are one-line wrappers of it; installed (cmake --install), it is
PREFIX/bin/collrepro. A new verb is one entry of VERBS.
"""

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass

from collrepro import safeio


@dataclass(frozen=True)
class Verb:
    """One verb of the front door.

    module    the module holding the command (imported when the verb runs)
    function  its entry point: function(argv) -> exit code
    prog      the tool's name in its error lines and --help; when set, the front door runs the
              function through safeio.run_cli(prog, ...); None: the function does that itself
    summary   one line for `collrepro --help`
    wrapper   the checkout's command that is a one-line wrapper of this verb ("" if none)
    needs     Python modules the verb needs (checked before the import: a missing one is one
              line, exit 5, naming the Debian package)
    """

    module: str
    function: str
    prog: str
    summary: str
    wrapper: str = ""
    needs: tuple = ()


ANALYSIS = ("numpy", "pandas", "scipy", "matplotlib", "yaml")

VERBS = {
    "run": Verb("collrepro.launch.collrun", "collrun", "collrun",
                "an experiment as L separate launches into one results directory (resumable)",
                "bench/collrun", ("yaml",)),
    "sweep": Verb("collrepro.launch.collrun", "sweep", "sweep",
                  "one collbench launch with this machine's launcher and MPI environment", "", ("yaml",)),
    "slurm": Verb("collrepro.slurm.cli", "main", "collslurm",
                  "Slurm job arrays: plan, submit, status, collect, resubmit", "slurm/collslurm", ("yaml",)),
    "sim": Verb("collrepro.sim", "main", "simrun",
                "an experiment in simulation (SimGrid SMPI, the smpi preset)", "bench/sim/simrun", ("yaml",)),
    "sim-paper": Verb("collrepro.sim_paper", "main", "paper",
                      "one of the papers' configurations at full scale in simulation", "bench/sim/paper",
                      ("yaml",)),
    "analyze": Verb("collrepro.analysis.cli", "main", None,
                    "analysis: report, figures, aggregate, compare, trend, guidelines, dashboard, ...",
                    "analysis/analyze", ANALYSIS),
    "tune": Verb("collrepro.tune", "main", None,
                 "selection rules for the PMPI library from a sweep", "interpose/colltune", ANALYSIS),
    "mpi": Verb("collrepro.installations.cli", "main", "collmpi",
                "MPI installations: list, show, env, add, remove, build, collbench", "bench/collmpi"),
    "versions": Verb("collrepro.versions", "main", "versions",
                     "one experiment on every MPI installation, then trend, guidelines and dashboard",
                     "", ANALYSIS),
    "timing-study": Verb("collrepro.timing_study", "main", "timing-study",
                         "the synchronization-method comparison: run, sim, report", "bench/timing-study",
                         ANALYSIS),
    "cluster": Verb("collrepro.cluster.cli", "main", "cluster",
                    "an emulated multi-node cluster on this machine: up, status, run, down (root)", ""),
    "compact": Verb("collrepro.compact", "main", "compact",
                    "store finished result directories gzip-compressed, in place (--check: dry run)", ""),
    "contract": Verb("collrepro.contract_files", "main", "contract",
                     "the files generated from the results contract: CONTRACT.md (markdown), golden vectors", ""),
    "env": Verb("collrepro.mpienv", "main", "env",
                "the MPI environment of the tests and launches: shell exports, or the tests' CMake file", ""),
}

DEBIAN_PACKAGES = {"numpy": "python3-numpy", "pandas": "python3-pandas", "scipy": "python3-scipy",
                   "matplotlib": "python3-matplotlib", "yaml": "python3-yaml"}

PROG = "collrepro"


def usage():
    width = max(map(len, VERBS))
    lines = [f"usage: {PROG} VERB [ARGS...]      ({PROG} VERB --help: the verb's options)", "",
             "verbs:"]
    lines += [f"  {name:<{width}}  {verb.summary}" for name, verb in VERBS.items()]
    lines += ["", "exit codes (every verb; docs/exit-codes.md):"]
    lines += [f"  {code:>3}  {meaning}" for code, meaning in safeio.EXIT_MEANING.items()]
    return "\n".join(lines) + "\n"


def missing_modules(verb):
    """The modules of verb.needs this interpreter cannot import (found without importing them)."""
    return [m for m in verb.needs if importlib.util.find_spec(m) is None]


def entry(name):
    """The verb's command: a function(argv) -> exit code that never raises."""
    verb = VERBS[name]
    missing = missing_modules(verb)
    if missing:
        packages = " ".join(DEBIAN_PACKAGES.get(m, m) for m in missing)
        raise safeio.EnvironmentProblem(
            f"{name}: {sys.executable} lacks {', '.join(missing)}: apt-get install {packages} "
            "(or set COLLREPRO_PYTHON to an interpreter that has them)")
    function = getattr(importlib.import_module(verb.module), verb.function)
    if verb.prog is None:
        return function
    return lambda argv: safeio.run_cli(verb.prog, function, argv)


def _dispatch(argv):
    if not argv:
        sys.stderr.write(usage())
        return safeio.EXIT_BAD_INPUT
    if argv[0] in ("-h", "--help", "help"):
        sys.stdout.write(usage())
        return safeio.EXIT_OK
    name, rest = argv[0], argv[1:]
    if name not in VERBS:
        raise safeio.UserError(f"unknown verb {safeio.excerpt(name, 40)!r}: use one of {', '.join(VERBS)} "
                               f"({PROG} --help)")
    command = entry(name)
    sys.argv = [f"{PROG} {name}", *rest]  # what a tool records as its command line (simrun's metadata)
    return command(rest)


def main(argv=None):
    """`collrepro VERB ARGS`: the verb's exit code; the front door's own errors are one line
    (`collrepro: ...`), exit 2 (an unknown verb) or 5 (a module the verb needs is missing)."""
    os.environ["MPLBACKEND"] = "Agg"  # figures are files; no display is needed or used
    argv = sys.argv[1:] if argv is None else list(argv)
    return safeio.run_cli(PROG, _dispatch, argv)
