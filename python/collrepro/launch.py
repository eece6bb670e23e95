"""Starting MPI programs, in one place for every tool of the project.

Four things live here and nowhere else:

- the launcher command of each MPI: Open MPI's mpirun.openmpi (with --oversubscribe when
  processes may outnumber cores), MPICH's mpiexec.mpich, Slurm's srun, SimGrid's smpirun;
- the environment these launches need on our machines: Open MPI run as root, idle ranks that
  yield the CPU when a node is oversubscribed (Open MPI's mpi_yield_when_idle, MPICH's
  MPIR_CVAR_POLLS_BEFORE_YIELD), and the topo/treematch workaround;
- signal forwarding: the launcher runs as a child; SIGINT/SIGTERM (and whatever else the
  caller lists) are passed on to it, the caller waits for its exit code; a second signal
  kills the launcher outright.

- the environment of the tests and of ./collrepro (ci_environment): the same, unconditionally,
  plus Open MPI's shared-memory single-copy mechanism off (btl_vader_single_copy_mechanism=none:
  containers lack cross-memory attach; it changes the timing of large messages, so a launch does
  not set it) and oversubscription for programs the tests start by hand. The CMake builds take it
  from a generated file (`--cmake`), the shell scripts from `--env` (below).

It also holds the local runners: `collrepro run` (collrun: several launches of one experiment
into one results directory) and `collrepro sweep` (one launch).

`python3 -m collrepro.launch --env [--launch MPI --np N]` prints shell `export` lines: by default
ci_environment, with --launch what a launch of N processes of MPI adds here.
`python3 -m collrepro.launch --cmake FILE --mpi FLAVOR` writes the CMake file the tests include.
"""

import argparse
import json
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field

from collrepro import job_size, safeio
from collrepro.cliargs import ArgumentParser
from collrepro.installations import collbench as installed_collbench
from collrepro.installations import derived, registry
from collrepro.safeio import EnvironmentProblem, UserError

MPIS = ("openmpi", "mpich")
PROGRAMS = {"openmpi": "mpirun.openmpi", "mpich": "mpiexec.mpich", "smpi": "smpirun"}
SRUN_MPI = {"openmpi": "pmix", "mpich": "pmi2"}


def installed_program(mpi):
    """The launcher of `mpi` as Debian installs it (an absolute path)."""
    return os.path.join("/usr/bin", PROGRAMS[mpi])


# ------------------------------------------------------------------ environment
# Every MPI setting of the project is written here and nowhere else. A launch adds what it needs
# (mpi_environment); the tests, the CMake builds (a file generated at configure time) and the
# shell scripts take the whole set from `python3 -m collrepro.launch --env` or `--cmake FILE`.

# Open MPI refuses to start as root without both.
RUN_AS_ROOT = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
# More processes than cores: idle ranks yield the CPU instead of spinning.
YIELD_WHEN_IDLE = {"openmpi": {"OMPI_MCA_mpi_yield_when_idle": "1"},
                   "mpich": {"MPIR_CVAR_POLLS_BEFORE_YIELD": "10"}}
# Open MPI 4.1's topo/treematch hangs now and then in repeated MPI_Dist_graph_create calls
# (open-mpi/ompi#8991), which the isomorphic remapped baseline and setup timing make.
NO_TREEMATCH = {"OMPI_MCA_topo": "^treematch"}
# Values a caller (or the user) set are kept, even empty ones.
CALLER_FIRST = ("OMPI_MCA_topo", "MPIR_CVAR_POLLS_BEFORE_YIELD")
# The tests and ./collrepro on a small machine, in containers: more processes than slots for
# programs started by hand too, and shared-memory copies without cross-memory attach.
TEST_ONLY = {"OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_btl_vader_single_copy_mechanism": "none"}
# The launcher flags that allow more processes than slots.
OVERSUBSCRIBE_FLAGS = {"openmpi": ["--oversubscribe"]}
TEST_LAUNCH_FLAGS = {"openmpi": OVERSUBSCRIBE_FLAGS["openmpi"] + ["--mca", "rmaps_base_oversubscribe", "1"]}


def _openmpi_settings(env, oversubscribed):
    if os.geteuid() == 0:
        env.update(RUN_AS_ROOT)
    if oversubscribed:
        env.update(YIELD_WHEN_IDLE["openmpi"])
    for k, v in NO_TREEMATCH.items():
        env.setdefault(k, v)


def _mpich_settings(env, oversubscribed):
    if oversubscribed:
        for k, v in YIELD_WHEN_IDLE["mpich"].items():
            env.setdefault(k, v)


def ci_environment():
    """The settings of every test and of ./collrepro, for both libraries (each ignores the other's):
    run as root, oversubscribed with yielding ranks, no treematch, no single-copy mechanism."""
    env = dict(RUN_AS_ROOT)
    for settings in YIELD_WHEN_IDLE.values():
        env.update(settings)
    env.update(NO_TREEMATCH)
    env.update(TEST_ONLY)
    return env


def mpi_environment(mpi, oversubscribed=False, base=None):
    """A copy of `base` (default: this process's environment) with what a launch of `mpi` needs.

    `oversubscribed` says that more processes than cores will run, so idle ranks should yield.
    """
    env = dict(os.environ if base is None else base)
    if mpi == "openmpi":
        _openmpi_settings(env, oversubscribed)
    elif mpi == "mpich":
        _mpich_settings(env, oversubscribed)
    return env


def installation_environment(inst, oversubscribed=False, base=None):
    """mpi_environment for an installation (collrepro.installations): its own variables (PATH,
    LD_LIBRARY_PATH of a non-system prefix), its kind's settings, and COLLREPRO_MPI_INSTALLATION,
    the record collbench copies into the metadata (`mpi_installation`; a derived installation
    adds base, delay and the preloaded library; another that preloads a library adds the library
    and its variables, `env`)."""
    env = mpi_environment(inst.kind, oversubscribed, inst.environment(base))
    record = {k: getattr(inst, k) for k in ("name", "kind", "version", "prefix", "origin", "configure")}
    if inst.origin == "derived":
        record.update(base=inst.base, delay=inst.delay, preload=derived.preloaded_library(inst))
    elif inst.env.get("LD_PRELOAD"):  # e.g. a slowdown library (installations/slowlib.py): what it ran with
        record.update(preload=inst.env["LD_PRELOAD"], env=dict(inst.env))
    env["COLLREPRO_MPI_INSTALLATION"] = json.dumps(record)
    return env


# ------------------------------------------------------------------ launcher commands

@dataclass
class Launcher:
    """How to start N processes of a program with one MPI.

    mpi            openmpi, mpich or smpi (SimGrid)
    via            "mpirun": the MPI's own launcher; "srun": Slurm's, with --mpi=<srun_mpi>
    program        the launcher executable (default: PROGRAMS[mpi], found on PATH)
    oversubscribe  processes may outnumber the slots (Open MPI --oversubscribe, srun --overcommit)
    srun_mpi       srun's PMI plugin (default SRUN_MPI[mpi])
    flags          more launcher flags, placed before the program
    """

    mpi: str
    via: str = "mpirun"
    program: str = None
    oversubscribe: bool = False
    srun_mpi: str = None
    flags: list = field(default_factory=list)

    def head(self, np):
        """The launcher words before the flags: executable and process count."""
        if self.via == "srun":
            words = ["srun", f"--ntasks={np}", f"--mpi={self.srun_mpi or SRUN_MPI[self.mpi]}"]
            return words + (["--overcommit"] if self.oversubscribe else [])
        program = self.program or PROGRAMS[self.mpi]
        if self.mpi == "smpi":
            return [program, "-np", str(np)]
        words = [program, "-n", str(np)]
        return words + (OVERSUBSCRIBE_FLAGS.get(self.mpi, []) if self.oversubscribe else [])

    def command(self, np, argv):
        """The full command line starting `argv` (program and its arguments) on np processes."""
        return self.head(np) + list(self.flags) + [str(a) for a in argv]


# ------------------------------------------------------------------ signal forwarding

def exit_code(returncode):
    """Popen's code as a shell reports it: killed by signal N -> 128 + N."""
    return 128 - returncode if returncode < 0 else returncode


class Forwarder:
    """Runs children and passes the signals this process gets on to them.

    The first signal goes to every running child as `translate.get(sig, sig)`; any further
    one kills them (SIGKILL). `received` keeps the first signal, so the caller can stop
    before starting another child; `run_all` starts none after it. Use it as a context
    manager: the handlers are installed on entry (not for a signal this process ignores, as a
    shell's trap would not) and the previous ones restored on exit.
    """

    def __init__(self, signals=(signal.SIGINT, signal.SIGTERM), translate=None):
        self.signals = tuple(signals)
        self.translate = dict(translate or {})
        self.received = None
        self._count = 0
        self._children = {}  # Popen -> signals it has been sent

    def __enter__(self):
        self._previous = {}
        for sig in self.signals:
            if signal.getsignal(sig) is not signal.SIG_IGN:  # ignored on entry (nohup, `&`): stays so
                self._previous[sig] = signal.signal(sig, self._on_signal)
        return self

    def __exit__(self, *exc):
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        return False

    def _on_signal(self, signum, _frame):
        self._count += 1
        if self.received is None:
            self.received = signum
        self._deliver()

    def _deliver(self):
        for child in list(self._children):
            while self._children.get(child, self._count) < self._count and child.poll() is None:
                first = self._children[child] == 0
                self._children[child] += 1
                if first:
                    child.send_signal(self.translate.get(self.received, self.received))
                else:
                    child.kill()

    def interrupt_code(self):
        """The exit code of a run stopped by the first signal: 128 + its number (130, 143)."""
        return 128 + self.received

    def _start(self, cmd, env):
        child = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL)
        self._children[child] = 0
        self._deliver()  # a signal that came while the child was being started
        return child

    def run(self, cmd, env=None):
        """Start cmd (stdin from /dev/null, as a background job), wait for it, return its exit code."""
        child = self._start(cmd, env)
        try:
            return exit_code(child.wait())
        finally:
            del self._children[child]

    def run_all(self, cmds, env=None, jobs=1, on_exit=None):
        """Run the commands, at most `jobs` at a time, in order; after a signal or a failure start
        no more. on_exit(index, code) is called as each one ends. Returns the exit codes (None
        for those never started)."""
        codes = [None] * len(cmds)
        running = {}  # Popen -> index
        pending = list(range(len(cmds)))
        try:
            while pending or running:
                while pending and len(running) < jobs and self.received is None and all(
                        c in (None, 0) for c in codes):
                    i = pending.pop(0)
                    running[self._start(cmds[i], env)] = i
                if not running:
                    break
                child = self._wait_any(running)
                i = running.pop(child)
                codes[i] = exit_code(child.returncode)
                del self._children[child]
                if on_exit:
                    on_exit(i, codes[i])
        finally:
            for child in running:  # only on an exception here: leave no child behind
                child.kill()
                child.wait()
                self._children.pop(child, None)
        return codes

    @staticmethod
    def _wait_any(running):
        """The first of the running children to end (one: waited for; several: polled, as Popen
        keeps each one's status)."""
        if len(running) == 1:
            child = next(iter(running))
            child.wait()
            return child
        while True:
            for child in running:
                if child.poll() is not None:
                    return child
            time.sleep(0.2)


# ------------------------------------------------------------------ collrun and sweep

RUN_DESCRIPTION = """\
run a collbench experiment as L separate launches (separate mpirun invocations) on this
machine, into one results directory. Resumable: a re-run completes only what is missing
(collbench skips complete launches and finished points)."""
SWEEP_DESCRIPTION = """\
run collbench once (one launch) on N processes of an MPI library, with this machine's launch
environment; the exit code is collbench's."""
LAUNCH_EPILOG = """\
after --: passed to every collbench call (e.g. --set timing.reps=50 --quiet)
Extra launcher flags: COLLRUN_LAUNCHER_FLAGS="--bind-to core" collrepro run ...
Exit code: 0 when every launch completed, else the first failing launch's collbench code,
unchanged (2 config, 3 validation, 4 MPI failure / incomplete, 5 I/O or environment, 130/143
interrupted); the command's own errors are one line: 2 usage or configuration, 5 a launcher or
the collbench build missing."""

# The repository; in an installed tree (cmake --install) PREFIX/share/collrepro, which holds the
# same folders (python/, configs/, contract/, slurm/, docs/) and the install record.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INSTALL_RECORD = "installed.json"


def install_record(root=REPO):
    """The record cmake --install writes beside the installed package ({"mpi": the library
    collbench was built with, "bindir": the programs, relative to root}), or None in a checkout."""
    path = os.path.join(root, INSTALL_RECORD)
    if not os.path.isfile(path):
        return None
    record = safeio.load_json_file(path, 64 * 1024, "the install record")
    if not isinstance(record, dict) or not isinstance(record.get("bindir"), str):
        raise EnvironmentProblem(f"{path}: not an install record (reinstall: cmake --install BUILD --prefix P)")
    return record


def checkout_only(what, root=REPO):
    """Refuse, in one line (exit 5), what needs a checkout's sources (a CMake build) in an
    installed tree; nothing in a checkout."""
    if install_record(root) is not None:
        raise EnvironmentProblem(f"{what} needs a checkout of the sources (it builds with CMake); {root} is an "
                                 "installed tree: run it in a clone of the repository")


def output_root(root=REPO):
    """Where a tool writes by default: the checkout's results/local/, or in an installed tree
    (read-only, /opt) results/local/ under the working directory."""
    return os.path.join(os.getcwd() if install_record(root) is not None else root, "results", "local")


def default_collbench(mpi, build_dir="", root=REPO):
    """collbench of `mpi` (openmpi or mpich): BUILD_DIR/bench/collbench; without one, the
    installed collbench of an installed tree built with that library, else build/<mpi>."""
    if build_dir:
        return os.path.join(build_dir, "bench", "collbench")
    record = install_record(root)
    if record is not None and record.get("mpi") == mpi:
        return os.path.normpath(os.path.join(root, record["bindir"], "collbench"))
    return os.path.join(root, "build", mpi, "bench", "collbench")


def _split_passthrough(argv):
    """argv -> (the command's own words, the words after the first `--`)."""
    argv = [str(a) for a in argv]
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def _launch_parser(prog, description):
    """The options run and sweep share (one argument style for every verb: argparse, GNU long
    options, `--` before what is passed on)."""
    ap = ArgumentParser(prog=prog, description=description, epilog=LAUNCH_EPILOG,
                        usage="%(prog)s [options] CONFIG.yaml [-- collbench args...]",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mpi", default="openmpi",
                    help="openmpi or mpich (default openmpi): the launcher (mpirun.openmpi with --oversubscribe, "
                         "or mpiexec.mpich) and the build dir build/<mpi> (installed: the installed collbench); "
                         "or an installation name (collrepro mpi list): its launcher, environment and build/<name>")
    ap.add_argument("--np", default="8",
                    help="processes per launch (default 8); auto: one per core, the config's groups.ratios cut to "
                         "those that fit, said in one line (job_size.py)")
    ap.add_argument("--out", default="",
                    help="result directory (default: collbench's results/<experiment>/<impl>-<version>)")
    ap.add_argument("--build-dir", default="", help="the CMake build directory holding bench/collbench")
    ap.add_argument("config", nargs="?", metavar="CONFIG.yaml")
    return ap


def _collrun_options(argv):
    """collrun's command line -> dict of options; raises UserError (exit 2)."""
    own, passthrough = _split_passthrough(argv)
    ap = _launch_parser("collrun", RUN_DESCRIPTION)
    ap.add_argument("--launches", default="",
                    help="number of launches (default: the config's `launches`, after --set overrides)")
    ap.add_argument("--installations", default="", metavar="NAME[,NAME...]",
                    help="run the experiment against each installation, into <out>/<name>/ (default out: "
                         "results/<experiment>); collbench must be built for each (collrepro mpi collbench NAME). "
                         "Launch l of every installation runs in round l, in an order drawn afresh for each round")
    ap.add_argument("--order-seed", default="", metavar="N",
                    help="with --installations: the seed of the rounds' orders (default: a fresh one, printed); "
                         "each launch's metadata records it (launch_order)")
    opts = vars(ap.parse_args(own))
    opts["config"] = opts["config"] or ""
    opts["passthrough"] = passthrough
    return opts


def positive_number(text, option):
    if not re.fullmatch(r"[1-9][0-9]*", text):
        raise UserError(f"{option} {text} is not a positive number")
    return int(text)


def _set_overrides(passthrough):
    """Only the --set overrides of the pass-through arguments (all that matters for --get)."""
    sets = []
    for i, arg in enumerate(passthrough):
        if arg == "--set":
            sets += ["--set", passthrough[i + 1] if i + 1 < len(passthrough) else ""]
        elif arg.startswith("--set="):
            sets.append(arg)
    return sets


@dataclass
class _Run:
    """One installation's part of a collrun: how to launch collbench, and where it writes."""

    label: str
    launcher: Launcher
    exe: str
    env: dict
    out: str


def _debian_run(mpi, opts, np):
    """--mpi openmpi|mpich: the Debian library through its launcher on PATH and build/<mpi>."""
    launcher = Launcher(mpi, oversubscribe=True, flags=os.environ.get("COLLRUN_LAUNCHER_FLAGS", "").split())
    if shutil.which(PROGRAMS[mpi]) is None:
        raise EnvironmentProblem(f"{PROGRAMS[mpi]} not found (install the {mpi} launcher: ./collrepro deps)")
    record = install_record()
    if record is not None and not opts["build_dir"] and record.get("mpi") != mpi:
        raise EnvironmentProblem(f"this installed tree's collbench is built with {record.get('mpi')}, not {mpi}: "
                                 f"use --mpi {record.get('mpi')}, or give --build-dir of a {mpi} build")
    exe = default_collbench(mpi, opts["build_dir"])
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        raise EnvironmentProblem(f"{exe} not found: build first (cmake --preset {mpi} && cmake --build --preset {mpi})")
    oversubscribed = np > len(os.sched_getaffinity(0))
    env = mpi_environment(mpi, oversubscribed=oversubscribed)
    try:
        env = installation_environment(registry.resolve(mpi), oversubscribed)
    except (registry.RegistryError, OSError):
        pass  # the run works without the record; its metadata then lacks the installation's name
    return _Run(mpi, launcher, exe, env, opts["out"])


def _installation_run(name, opts, np, out):
    """An installation from the registry: its launcher, environment and build/<name>."""
    inst = registry.resolve(name)  # RegistryError (exit 2): names the installations known
    exe = (os.path.join(opts["build_dir"], "bench", "collbench") if opts["build_dir"]
           else installed_collbench.executable(inst))
    if not exe or not os.access(exe, os.X_OK):
        raise EnvironmentProblem(f"collbench is not built for {name}" + (f" ({exe} is missing)" if exe else "")
                                 + f": collrepro mpi collbench {name}")
    derived.check_ready(inst)  # a synthetic release whose library is missing would run undelayed
    for lib in inst.env.get("LD_PRELOAD", "").replace(":", " ").split():
        if not os.path.isfile(lib):  # the loader would skip it with a warning and run every call untouched
            raise EnvironmentProblem(f"{name}: the library it preloads, {lib}, is missing: build it first")
    launcher = Launcher(inst.kind, program=inst.launcher, oversubscribe=True,
                        flags=os.environ.get("COLLRUN_LAUNCHER_FLAGS", "").split())
    env = installation_environment(inst, oversubscribed=np > len(os.sched_getaffinity(0)))
    return _Run(inst.name, launcher, exe, env, out)


def _collrun_setup(opts):
    """Check the options; returns (the runs, one per installation, and the process count)."""
    if not opts["config"]:
        raise UserError("a CONFIG.yaml is required (see collrun --help)")
    if not os.path.isfile(opts["config"]):
        raise UserError(f"{opts['config']}: no such file")
    if opts["np"] == "auto":
        if opts.get("installations"):
            raise UserError("--np auto goes with --mpi; give --np N with --installations")
        return _auto_sized(opts)
    np = positive_number(opts["np"], "--np")
    if opts.get("installations"):
        names = [n for n in opts["installations"].split(",") if n]
        if not names or len(set(names)) != len(names):
            raise UserError(f"--installations {opts['installations']}: give distinct names, comma-separated")
        if opts["build_dir"]:
            raise UserError("--build-dir goes with --mpi only (--installations uses build/<name> of each)")
        runs = [_installation_run(n, opts, np, "") for n in names]
        root = opts["out"] or os.path.join("results", _config_value(runs[0], opts, "experiment"))
        for run in runs:
            run.out = os.path.join(root, run.label)
        return runs, np
    return [collbench_run(opts["mpi"], np, opts["build_dir"], opts["out"])], np


def _auto_sized(opts):
    """--np auto: one process per core, the config's groups.ratios cut to those that fit that
    count (job_size.py), said in one line; returns ([the run], the process count)."""
    n_cores = job_size.cores()
    run = collbench_run(opts["mpi"], n_cores, opts["build_dir"], opts["out"])
    listed = _config_value(run, opts, "groups.ratios")
    try:
        ratios = [str(r) for r in json.loads(listed)] if listed else []
    except (ValueError, TypeError):
        ratios = []  # not a list of ratios: collbench names the field when it reads it
    chosen = job_size.fit(ratios, n_cores)
    if chosen.np != n_cores:
        run = collbench_run(opts["mpi"], chosen.np, opts["build_dir"], opts["out"])
    if chosen.left_out:
        opts["passthrough"] = opts["passthrough"] + ["--set", f"groups.ratios=[{', '.join(chosen.ratios)}]"]
    _say(f"--np auto: {chosen.line()}")
    return [run], chosen.np


def collbench_run(mpi, np, build_dir="", out=""):
    """How to launch collbench on `np` processes of `mpi` (a Debian library or an installation
    name): its launcher, executable and environment. Raises UserError (exit 2) for an unknown
    installation (the line names those known), EnvironmentProblem (exit 5) when the launcher or
    the collbench build is missing."""
    opts = {"build_dir": build_dir, "out": out}
    if mpi in MPIS:
        return _debian_run(mpi, opts, np)
    return _installation_run(mpi, opts, np, out)


def _config_value(run, opts, key):
    """One effective config value (after --set), as collbench reads it; exits with its code."""
    proc = subprocess.run([run.exe, opts["config"], "--get", key] + _set_overrides(opts["passthrough"]),
                          env=run.env, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:  # collbench said why, in one line; its exit code is collrun's
        raise SystemExit(exit_code(proc.returncode))
    return proc.stdout.strip()


def _say(message):
    print(f"collrun: {message}", file=sys.stderr, flush=True)


def round_order(names, seed, round_index):
    """The order of `names` in round `round_index`: a permutation drawn from (seed, round) alone,
    so a re-run with the same seed repeats it, whatever rounds it runs."""
    return random.Random(f"collrepro-launch-order:{seed}:{round_index}").sample(list(names), len(names))


def _order_seed(opts):
    """--order-seed, or a fresh seed (printed, so that the orders can be repeated)."""
    if opts.get("order_seed"):
        if not re.fullmatch(r"[0-9]{1,18}", opts["order_seed"]):
            raise UserError(f"--order-seed {opts['order_seed'][:60]} is not a whole number (0 to 10^18 - 1)")
        return int(opts["order_seed"])
    return secrets.randbelow(1 << 31)


def _failed(run, launch, rc):
    then = ("fix what collbench says above, then re-run: finished launches are kept"
            if rc in (safeio.EXIT_BAD_INPUT, safeio.EXIT_VALIDATION) else "re-run to resume")
    _say(f"[{run.label}] launch {launch} failed with exit code {rc}; {then}")
    return rc


def _run_one(run, np, opts, launch, launches, fwd, env=None):
    """One launch of one installation; returns its exit code (128 + N after signal N)."""
    if fwd.received is not None:
        _say(f"interrupted before launch {launch}; finished points are kept, re-run to complete")
        return fwd.interrupt_code()
    out = ["--out", run.out] if run.out else []
    cmd = run.launcher.command(np, [run.exe, opts["config"], "--launch", launch] + out + opts["passthrough"])
    _say(f"[{run.label}] launch {launch} of {launches}: {' '.join(cmd)}")
    rc = fwd.run(cmd, env or run.env)
    if fwd.received is not None:
        _say(f"interrupted during launch {launch}; finished points are kept, re-run to complete")
        return fwd.interrupt_code()
    return _failed(run, launch, rc) if rc != 0 else 0


def _run_launches(run, np, opts, launches, fwd):
    """The launch loop of one installation; returns its exit code."""
    for launch in range(launches):
        rc = _run_one(run, np, opts, launch, launches, fwd)
        if rc != 0:
            return rc
    _say(f"[{run.label}] {launches} launch(es) complete" + (f" in {run.out}" if run.out else ""))
    return 0


def _run_rounds(runs, np, opts, launches, fwd):
    """--installations: round l runs launch l of every installation, in round_order; each launch's
    environment carries COLLREPRO_LAUNCH_ORDER, which collbench records (launch_order)."""
    seed = _order_seed(opts)
    by_label = {run.label: run for run in runs}
    labels = [run.label for run in runs]
    _say(f"launch order: seed {seed}, a fresh permutation each round (--order-seed {seed} repeats it)")
    for launch in range(launches):
        order = round_order(labels, seed, launch)
        _say(f"round {launch}: {' '.join(order)}")
        for slot, label in enumerate(order):
            run = by_label[label]
            env = dict(run.env)
            env["COLLREPRO_LAUNCH_ORDER"] = json.dumps(
                {"seed": seed, "round": launch, "slot": slot, "of": len(order), "order": order})
            rc = _run_one(run, np, opts, launch, launches, fwd, env)
            if rc != 0:
                return rc
    _say(f"{launches} round(s) of {len(runs)} installation(s) complete"
         + (f" in {os.path.dirname(runs[0].out)}" if runs[0].out else ""))
    return 0


def collrun(argv=None):
    """collrepro run (bench/collrun): parse its command line, run the launches; returns the exit
    code (the first failing launch's collbench code, unchanged). Its own errors are raised as
    UserError (exit 2) or EnvironmentProblem (exit 5), before any launch: run it through
    safeio.run_cli (run_main)."""
    opts = _collrun_options(sys.argv[1:] if argv is None else argv)
    if opts["order_seed"] and not opts["installations"]:
        raise UserError("--order-seed goes with --installations (the order of installations in each round)")
    runs, np = _collrun_setup(opts)
    launches = positive_number(opts["launches"] or _config_value(runs[0], opts, "launches"), "--launches")
    with Forwarder() as fwd:
        if opts["installations"]:
            return _run_rounds(runs, np, opts, launches, fwd)
        return _run_launches(runs[0], np, opts, launches, fwd)


def sweep(argv=None):
    """collrepro sweep: one collbench launch; returns collbench's exit code."""
    own, passthrough = _split_passthrough(sys.argv[1:] if argv is None else argv)
    opts = vars(_launch_parser("sweep", SWEEP_DESCRIPTION).parse_args(own))
    opts["config"] = opts["config"] or ""
    opts["passthrough"] = passthrough
    (run,), np = _collrun_setup(opts)
    out = ["--out", run.out] if run.out else []
    cmd = run.launcher.command(np, [run.exe, opts["config"]] + out + passthrough)
    print(f"[sweep] {' '.join(cmd)}", file=sys.stderr, flush=True)
    with Forwarder() as fwd:
        rc = fwd.run(cmd, run.env)
        return fwd.interrupt_code() if fwd.received is not None else rc


def run_main(argv=None):
    """collrepro run: collrun through safeio.run_cli."""
    return safeio.run_cli("collrun", collrun, argv)


def sweep_main(argv=None):
    """collrepro sweep: sweep through safeio.run_cli."""
    return safeio.run_cli("sweep", sweep, argv)


# ------------------------------------------------------------------ the environment, for others

def _shell_value(key, value):
    if not re.fullmatch(r"[\w^.,:/=+-]*", value):
        raise ValueError(f"{key}={value!r} needs shell quoting")  # a bug in the tables above
    return f'"${{{key}-{value}}}"' if key in CALLER_FIRST else value


def shell_exports(env):
    """`export K=V` lines for a shell to eval; values a caller set first are kept (CALLER_FIRST)."""
    return "".join(f"export {k}={_shell_value(k, v)}\n" for k, v in sorted(env.items()))


def _cmake_list(words):
    return ";".join(w.replace(";", "\\;") for w in words)


def cmake_settings(flavor):
    """The CMake file the tests include (cmake/MpiLaunch.cmake writes it at configure time)."""
    return ("# Generated by `python3 -m collrepro.launch --cmake` (python/collrepro/launch.py); do not edit.\n"
            "# The environment of every MPI test (a list of NAME=VALUE for the ENVIRONMENT property):\n"
            f'set(COLLREPRO_MPI_TEST_ENV "{_cmake_list(f"{k}={v}" for k, v in sorted(ci_environment().items()))}")\n'
            f"# The launcher flags of every MPI test of this build ({flavor}), before COLLREPRO_MPIEXEC_EXTRA:\n"
            f'set(COLLREPRO_MPI_LAUNCH_FLAGS "{_cmake_list(TEST_LAUNCH_FLAGS.get(flavor, []))}")\n')


def _environment_main(argv):
    ap = ArgumentParser(prog="collrepro.launch",
                        description="the MPI launch environment, for shell scripts and CMake (launch.py)")
    ap.add_argument("--env", action="store_true",
                    help="print `export` lines: the tests' environment (ci_environment), or with --launch what a "
                         "launch adds here")
    ap.add_argument("--launch", choices=MPIS, help="with --env: the settings of a launch of this library")
    ap.add_argument("--np", type=int, default=1, help="with --launch: its process count (default 1)")
    ap.add_argument("--cmake", metavar="FILE", help="write the CMake settings of the tests to FILE")
    ap.add_argument("--mpi", default="", help="with --cmake: the build's library (openmpi, mpich, smpi, ...)")
    args = ap.parse_args(argv)
    if args.cmake:
        safeio.write_text(args.cmake, cmake_settings(args.mpi))
    elif args.env:
        env = (ci_environment() if args.launch is None else
               mpi_environment(args.launch, oversubscribed=args.np > len(os.sched_getaffinity(0)), base={}))
        sys.stdout.write(shell_exports(env))
    else:
        raise UserError("give --env or --cmake FILE (see collrepro.launch --help)")
    return 0


if __name__ == "__main__":
    safeio.main_exit("collrepro.launch", _environment_main)
