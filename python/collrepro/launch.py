"""Starting MPI programs, in one place for every tool of the project.

Three things live here and nowhere else:

- the launcher command of each MPI: Open MPI's mpirun.openmpi (with --oversubscribe when
  processes may outnumber cores), MPICH's mpiexec.mpich, Slurm's srun, SimGrid's smpirun;
- the environment these launches need on our machines: Open MPI run as root, idle ranks that
  yield the CPU when a node is oversubscribed (Open MPI's mpi_yield_when_idle, MPICH's
  MPIR_CVAR_POLLS_BEFORE_YIELD), and the topo/treematch workaround;
- signal forwarding: the launcher runs as a child; SIGINT/SIGTERM (and whatever else the
  caller lists) are passed on to it, the caller waits for its exit code; a second signal
  kills the launcher outright.

Open MPI's shared-memory single-copy mechanism (btl_vader_single_copy_mechanism) is not set
here: containers without cross-memory attach need `none`, but that changes the timing of large
messages, so it stays the caller's choice (./collrepro and the tests export it).

`python3 -m collrepro.launch` is bench/collrun, the local runner: several launches of one
experiment into one results directory.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field

from collrepro import safeio
from collrepro.installations import collbench as installed_collbench
from collrepro.installations import registry
from collrepro.safeio import EnvironmentProblem, UserError

MPIS = ("openmpi", "mpich")
PROGRAMS = {"openmpi": "mpirun.openmpi", "mpich": "mpiexec.mpich", "smpi": "smpirun"}
SRUN_MPI = {"openmpi": "pmix", "mpich": "pmi2"}


def installed_program(mpi):
    """The launcher of `mpi` as Debian installs it (an absolute path)."""
    return os.path.join("/usr/bin", PROGRAMS[mpi])


# ------------------------------------------------------------------ environment

def _openmpi_settings(env, oversubscribed):
    if os.geteuid() == 0:
        env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    if oversubscribed:
        env["OMPI_MCA_mpi_yield_when_idle"] = "1"
    # Open MPI 4.1's topo/treematch hangs now and then in repeated MPI_Dist_graph_create calls
    # (open-mpi/ompi#8991), which the isomorphic remapped baseline and setup timing make.
    # A value the caller set (even an empty one) is kept.
    env.setdefault("OMPI_MCA_topo", "^treematch")


def _mpich_settings(env, oversubscribed):
    if oversubscribed:
        env.setdefault("MPIR_CVAR_POLLS_BEFORE_YIELD", "10")


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
    the record collbench copies into the metadata (`mpi_installation`)."""
    env = mpi_environment(inst.kind, oversubscribed, inst.environment(base))
    env["COLLREPRO_MPI_INSTALLATION"] = json.dumps(
        {k: getattr(inst, k) for k in ("name", "kind", "version", "prefix", "origin", "configure")})
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
        return words + (["--oversubscribe"] if self.mpi == "openmpi" and self.oversubscribe else [])

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


# ------------------------------------------------------------------ bench/collrun

COLLRUN_USAGE = """\
collrun: run a collbench experiment as L separate launches (separate mpirun invocations)
on this machine, into one results directory. Resumable: a re-run completes only what is
missing (collbench skips complete launches and finished points).

  bench/collrun [--mpi openmpi|mpich|NAME] [--np N] [--launches L] [--out DIR] [--build-dir DIR]
                CONFIG.yaml [-- collbench args...]
  bench/collrun --installations NAME[,NAME...] [--np N] [--launches L] [--out DIR]
                CONFIG.yaml [-- collbench args...]

  --mpi        MPI library (default openmpi): picks the launcher (mpirun.openmpi with
               --oversubscribe, or mpiexec.mpich) and the default build dir build/<mpi>;
               or an installation name (bench/collmpi list): its launcher, environment and
               build/<name>
  --installations  run the experiment against each installation in turn, into
               <out>/<name>/ (default out: results/<experiment>); collbench must be built
               for each (bench/collmpi collbench NAME)
  --np         processes per launch (default 8)
  --launches   number of launches (default: the config's `launches`, after --set overrides)
  --out        result directory (default: collbench's results/<experiment>/<impl>-<version>)
  --build-dir  the CMake build directory holding bench/collbench
  after --:    passed to every collbench call (e.g. --set timing.reps=50 --quiet)
Extra launcher flags: COLLRUN_LAUNCHER_FLAGS="--bind-to core" bench/collrun ...
Exit code: 0 when every launch completed, else the first failing launch's collbench code,
unchanged (2 config, 3 validation, 4 MPI failure / incomplete, 5 I/O or environment, 130/143
interrupted); collrun's own errors are one line: 2 usage or configuration, 5 a launcher or
the collbench build missing.
"""

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Usage(UserError):
    """A command-line error of collrun: exit 2, one line (pointing at --help when `usage` is set)."""

    def __init__(self, message, usage=False):
        super().__init__(message + (" (bench/collrun --help shows the options)" if usage else ""))
        self.usage = usage


def _collrun_options(argv):
    """collrun's command line -> dict of options; raises Usage. Help returns {'help': True}."""
    opts = {"mpi": "openmpi", "np": "8", "launches": "", "out": "", "build_dir": "", "config": "",
            "installations": "", "passthrough": []}
    valued = {"--mpi": "mpi", "--np": "np", "--launches": "launches", "--out": "out", "--build-dir": "build_dir",
              "--installations": "installations"}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in valued:
            if i + 1 >= len(argv) or argv[i + 1] == "":
                raise Usage(f"{arg} needs a value")
            opts[valued[arg]] = argv[i + 1]
            i += 2
            continue
        if arg in ("-h", "--help"):
            return {"help": True}
        if arg == "--":
            opts["passthrough"] = argv[i + 1:]
            break
        if arg.startswith("-"):
            raise Usage(f"unknown option {arg}", usage=True)
        if opts["config"]:
            raise Usage(f"one CONFIG only (got {opts['config']} and {arg})")
        opts["config"] = arg
        i += 1
    return opts


def _positive(text, option):
    if not re.fullmatch(r"[1-9][0-9]*", text):
        raise Usage(f"{option} {text} is not a positive number")
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
    exe = os.path.join(opts["build_dir"] or os.path.join(REPO, "build", mpi), "bench", "collbench")
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
                                 + f": bench/collmpi collbench {name}")
    launcher = Launcher(inst.kind, program=inst.launcher, oversubscribe=True,
                        flags=os.environ.get("COLLRUN_LAUNCHER_FLAGS", "").split())
    env = installation_environment(inst, oversubscribed=np > len(os.sched_getaffinity(0)))
    return _Run(inst.name, launcher, exe, env, out)


def _collrun_setup(opts):
    """Check the options; returns (the runs, one per installation, and the process count)."""
    if not opts["config"]:
        raise Usage("a CONFIG.yaml is required", usage=True)
    if not os.path.isfile(opts["config"]):
        raise Usage(f"{opts['config']}: no such file")
    np = _positive(opts["np"], "--np")
    if opts["installations"]:
        names = [n for n in opts["installations"].split(",") if n]
        if not names or len(set(names)) != len(names):
            raise Usage(f"--installations {opts['installations']}: give distinct names, comma-separated")
        if opts["build_dir"]:
            raise Usage("--build-dir goes with --mpi only (--installations uses build/<name> of each)")
        runs = [_installation_run(n, opts, np, "") for n in names]
        root = opts["out"] or os.path.join("results", _config_value(runs[0], opts, "experiment"))
        for run in runs:
            run.out = os.path.join(root, run.label)
        return runs, np
    return [collbench_run(opts["mpi"], np, opts["build_dir"], opts["out"])], np


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


def _run_launches(run, np, opts, launches, fwd):
    """The launch loop of one installation; returns its exit code."""
    out = ["--out", run.out] if run.out else []
    for launch in range(launches):
        if fwd.received is not None:
            _say(f"interrupted before launch {launch}; finished points are kept, re-run to complete")
            return fwd.interrupt_code()
        cmd = run.launcher.command(np, [run.exe, opts["config"], "--launch", launch] + out + opts["passthrough"])
        _say(f"[{run.label}] launch {launch} of {launches}: {' '.join(cmd)}")
        rc = fwd.run(cmd, run.env)
        if fwd.received is not None:
            _say(f"interrupted during launch {launch}; finished points are kept, re-run to complete")
            return fwd.interrupt_code()
        if rc != 0:
            then = ("fix what collbench says above, then re-run: finished launches are kept"
                    if rc in (safeio.EXIT_BAD_INPUT, safeio.EXIT_VALIDATION) else "re-run to resume")
            _say(f"[{run.label}] launch {launch} failed with exit code {rc}; {then}")
            return rc
    _say(f"[{run.label}] {launches} launch(es) complete" + (f" in {run.out}" if run.out else ""))
    return 0


def collrun(argv=None):
    """bench/collrun: parse its command line, run the launches; returns the exit code (the first
    failing launch's collbench code, unchanged). Its own errors are raised as UserError (exit 2)
    or EnvironmentProblem (exit 5), before any launch: run it through safeio.run_cli."""
    argv = sys.argv[1:] if argv is None else argv
    opts = _collrun_options(argv)
    if opts.get("help"):
        print(COLLRUN_USAGE, end="")
        return 0
    runs, np = _collrun_setup(opts)
    launches = _positive(opts["launches"] or _config_value(runs[0], opts, "launches"), "--launches")
    with Forwarder() as fwd:
        for run in runs:
            rc = _run_launches(run, np, opts, launches, fwd)
            if rc != 0:
                return rc
    return 0


if __name__ == "__main__":
    safeio.main_exit("collrun", collrun)
