"""collrepro's front door: `collrepro-py VERB [ARGS...]` (`python3 -m collrepro VERB ...`), one
command for every tool; a verb may be two words (`sim validate`).

Each verb is a module's command line, imported only when it runs (pandas and matplotlib load for
the verbs that use them). Every verb parses its arguments the same way (argparse: GNU long
options, `-h`/`--help`, `--` before what is passed on to collbench) and ends with a code of the
exit-code table below; every error is one line that starts with the tool's name (`collrun:`,
`analyze: error:`, ...), which is also the name its --help shows.

The front door is `collrepro-py` in a checkout and installed (cmake --install: PREFIX/bin/collrepro-py);
`./collrepro`, the checkout's bash script for dependencies, builds and tests, is another command
and is not installed. The older commands (bench/collrun, analysis/analyze, ...) are one-line
wrappers of it. A new verb is one entry of VERBS; no module has an entry point of its own.
"""

import importlib
import importlib.util
import os
import re
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
    "slurm task": Verb("collrepro.slurm.task", "main", "collslurm task",
                       "one array task of a submission (what its batch script runs)"),
    "sim run": Verb("collrepro.sim.running.run", "main", "simrun",
                    "an experiment in simulation (SimGrid SMPI, the smpi preset)", "bench/sim/simrun", ("yaml",)),
    "sim paper": Verb("collrepro.sim.running.paper", "main", "paper",
                      "one of the papers' configurations at full scale in simulation", "bench/sim/paper",
                      ("yaml",)),
    "sim platform": Verb("collrepro.sim.running.make_platform", "main", "sim platform",
                         "a SimGrid platform of this node from collbench's ping-pongs (node16-<mpi>.xml)"),
    "sim validate": Verb("collrepro.sim.validation.validate_command", "main", "sim validate",
                         "the simulation against real-node runs: platforms, run, report (results/sim/validation)",
                         "", ANALYSIS),
    "sim validate-cluster": Verb("collrepro.sim.validation.cluster_validate", "main", "sim validate-cluster",
                                 "the simulation against an emulated cluster's runs (results/cluster/validation)",
                                 "", ANALYSIS),
    "sim sensitivity": Verb("collrepro.sim.validation.sensitivity", "main", "sim sensitivity",
                            "the Cori model's effects swept one at a time (results/sim/sensitivity)"),
    "sim speedups": Verb("collrepro.sim.validation.speedups", "main", "sim speedups",
                         "simulated speedups at the largest size beside the cost model's and the papers'",
                         "", ANALYSIS),
    "sim root-cost": Verb("collrepro.sim.validation.root_cost", "main", "sim root-cost",
                          "seed 000's 256 x 1 gap: the root rate that would close it", "", ANALYSIS),
    "sim cori": Verb("collrepro.sim.platforms.cori", "main", "sim cori",
                     "write the dragonfly platforms: dragonfly-adaptive.xml, cori-effects.xml (--effects)"),
    "sim simgrid": Verb("collrepro.installations.simgrid", "main", "sim simgrid",
                        "build SimGrid 3.32 from Debian's source without its per-message list walk (fast)"),
    "sim node-memory": Verb("collrepro.sim.platforms.node_memory", "main", "sim node-memory",
                            "write a platform of N nodes x C cores sharing each node's memory bandwidth"),
    "reproduce": Verb("collrepro.reproduce.cli", "main", "reproduce",
                      "a verdict per paper figure: against the archive and the paper's claims (configs/paper/claims.yaml)",
                      "", ANALYSIS),
    "analyze": Verb("collrepro.analysis.cli", "main", None,
                    "analysis: report, figures, aggregate, compare, trend, guidelines, dashboard, ...",
                    "analysis/analyze", ANALYSIS),
    "tune": Verb("collrepro.analysis.tune", "main", None,
                 "selection rules for the PMPI library from a sweep", "interpose/colltune", ANALYSIS),
    "mpi": Verb("collrepro.installations.cli", "main", "collmpi",
                "MPI installations: list, show, env, add, remove, build, collbench", "bench/collmpi"),
    "mpi debian-source": Verb("collrepro.installations.debian", "main", "mpi debian-source",
                              "fetch and unpack a Debian source package of a suite (what builds use)"),
    "versions": Verb("collrepro.versions.run", "main", "versions",
                     "one experiment on every MPI installation, then trend, guidelines and dashboard",
                     "", ANALYSIS),
    "versions calibration": Verb("collrepro.versions.calibration", "main", "versions calibration",
                                 "analyse the runs of versions --calibrate: false changes, detected slowdowns",
                                 "", ANALYSIS),
    "versions forecast": Verb("collrepro.versions.forecast", "main", "versions forecast",
                              "before measuring: the smallest change a planned first pass finds, from a pilot",
                              "", ANALYSIS),
    "study timing": Verb("collrepro.studies.timing", "main", "timing-study",
                         "the synchronization-method comparison: run, sim, report", "bench/timing-study",
                         ANALYSIS),
    "study node16": Verb("collrepro.studies.node16", "main", "study node16",
                         "the 16-core node runs' summary tables (results/node16/SUMMARY.md)", "", ANALYSIS),
    "cluster": Verb("collrepro.cluster.cli", "main", "cluster",
                    "an emulated multi-node cluster on this machine: up, status, run, down (root)", ""),
    "fuzz": Verb("collrepro.fuzz.cli", "main", "fuzz",
                 "the differential fuzzer of inter-group Allgather(v): every library, every door (resumable)"),
    "compact": Verb("collrepro.compact", "main", "compact",
                    "store finished result directories gzip-compressed, in place (--check: dry run)", ""),
    "catalogue": Verb("collrepro.catalogue", "main", "catalogue",
                      "the algorithm catalogue snapshot and its docs table: write, check"),
    "contract": Verb("collrepro.contract_files", "main", "contract",
                     "the files generated from the results contract: CONTRACT.md (markdown), golden vectors", ""),
    "env": Verb("collrepro.mpienv", "main", "env",
                "the MPI environment of the tests and launches: shell exports, or the tests' CMake file", ""),
}

DEBIAN_PACKAGES = {"numpy": "python3-numpy", "pandas": "python3-pandas", "scipy": "python3-scipy",
                   "matplotlib": "python3-matplotlib", "yaml": "python3-yaml"}

PROG = "collrepro-py"


def groups():
    """The first words of the verbs of two words (`sim` of `sim validate`)."""
    return {name.split(" ")[0] for name in VERBS if " " in name}


def usage(group=None):
    """The front door's --help (every verb), or a group's (`sim --help`: its verbs)."""
    shown = {n: v for n, v in VERBS.items() if group is None or n.startswith(f"{group} ")}
    width = max(map(len, shown))
    lines = [f"usage: {PROG} {group + ' ' if group else ''}VERB [ARGS...]      ({PROG} VERB --help: the verb's options)",
             "", "verbs:"]
    lines += [f"  {name:<{width}}  {verb.summary}" for name, verb in shown.items()]
    if group:
        return "\n".join(lines) + "\n"
    lines += ["", "exit codes (every verb; docs/exit-codes.md):"]
    lines += [f"  {code:>3}  {meaning}" for code, meaning in safeio.EXIT_MEANING.items()]
    return "\n".join(lines) + "\n"


def missing_modules(verb):
    """The modules of verb.needs this interpreter cannot import (found without importing them)."""
    return [m for m in verb.needs if importlib.util.find_spec(m) is None]


def _lacks(name, missing):
    packages = " ".join(DEBIAN_PACKAGES.get(m, m) for m in missing)
    return safeio.EnvironmentProblem(f"{name}: {sys.executable} lacks {', '.join(missing)}: apt-get install "
                                     f"{packages} (or set COLLREPRO_PYTHON to an interpreter that has them)")


def missing_dependency(err):
    """The dependency (a key of DEBIAN_PACKAGES) whose import failed in `err`, or None.
    ModuleNotFoundError names the module; pandas re-raises a missing numpy as an ImportError
    that says "No module named 'numpy'"."""
    said = re.search(r"No module named '([\w.]+)'", str(err))
    name = (getattr(err, "name", None) or (said[1] if said else "")).split(".")[0]
    return name if name in DEBIAN_PACKAGES else None


def entry(name):
    """The verb's command: a function(argv) -> exit code that never raises."""
    verb = VERBS[name]
    missing = missing_modules(verb)
    if missing:
        raise _lacks(name, missing)
    try:
        module = importlib.import_module(verb.module)
    except ImportError as err:  # found but broken, or a dependency the verb does not list
        if missing_dependency(err) is None or os.environ.get("COLLREPRO_DEBUG") == "1":
            raise
        raise _lacks(name, [missing_dependency(err)]) from None
    function = getattr(module, verb.function)
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
    if rest and f"{name} {rest[0]}" in VERBS:   # a verb of two words: `sim validate`
        name, rest = f"{name} {rest[0]}", rest[1:]
    elif name not in VERBS and name in groups():
        if rest and rest[0] in ("-h", "--help", "help"):
            sys.stdout.write(usage(name))
            return safeio.EXIT_OK
        words = ", ".join(v.split(" ", 1)[1] for v in VERBS if v.startswith(f"{name} "))
        said = f"unknown {name} verb {safeio.excerpt(rest[0], 40)!r}" if rest else f"{name} needs a verb"
        raise safeio.UserError(f"{said}: use one of {words} ({PROG} {name} --help)")
    if name not in VERBS:
        raise safeio.UserError(f"unknown verb {safeio.excerpt(name, 40)!r}: use one of {', '.join(VERBS)} "
                               f"({PROG} --help)")
    command = entry(name)
    sys.argv = [f"{PROG} {name}", *rest]  # what a tool records as its command line (simrun's metadata)
    return command(rest)


def main(argv=None):
    """`collrepro-py VERB ARGS`: the verb's exit code; the front door's own errors are one line
    (`collrepro-py: ...`), exit 2 (an unknown verb) or 5 (a module the verb needs is missing)."""
    os.environ["MPLBACKEND"] = "Agg"  # figures are files; no display is needed or used
    argv = sys.argv[1:] if argv is None else list(argv)
    return safeio.run_cli(PROG, _dispatch, argv)
