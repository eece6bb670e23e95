"""Starting programs: the launcher command of each MPI (Launcher: mpirun, mpiexec, srun,
smpirun) and signal forwarding (Forwarder): the launcher runs as a child; SIGINT/SIGTERM (and
whatever else the caller lists) are passed on to it, the caller waits for its exit code; a
second signal kills the launcher outright. The environment a launch needs is mpienv.py's.
"""

import os
import signal
import subprocess
import time
from dataclasses import dataclass, field

from collrepro.mpienv import OVERSUBSCRIBE_FLAGS, PROGRAMS, SRUN_MPI


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

    groups=True starts every child in a process group of its own and signals the whole group:
    for a child that is a wrapper script which forwards a signal but does not wait for its
    program (SimGrid's smpirun). When such a child ends after a signal, whatever is left of its
    group gets `grace` seconds to end, then SIGKILL: a program that had not yet looked at the
    signal (a simulation inside one long collective) does not run on, orphaned.
    """

    def __init__(self, signals=(signal.SIGINT, signal.SIGTERM), translate=None, groups=False, grace=5.0):
        self.signals = tuple(signals)
        self.translate = dict(translate or {})
        self.groups = groups
        self.grace = grace
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
                self._signal(child, self.translate.get(self.received, self.received) if first else signal.SIGKILL)

    def _signal(self, child, sig):
        if not self.groups:
            child.send_signal(sig)
            return
        try:
            os.killpg(child.pid, sig)
        except ProcessLookupError:
            pass

    def _reap_group(self, child):
        """After a child ended: with groups=True and a signal received, end what is left of its group."""
        if not self.groups or self.received is None:
            return
        deadline, killed = time.time() + self.grace, False
        while time.time() < deadline + 5.0:  # SIGKILL'd members are gone once reaped
            try:
                os.killpg(child.pid, 0)
            except ProcessLookupError:
                return
            if not killed and time.time() >= deadline:
                self._signal(child, signal.SIGKILL)
                killed = True
            time.sleep(0.05)

    def interrupt_code(self):
        """The exit code of a run stopped by the first signal: 128 + its number (130, 143)."""
        return 128 + self.received

    def _start(self, cmd, env):
        child = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, start_new_session=self.groups)
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
            self._reap_group(child)

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
                self._reap_group(child)
                if on_exit:
                    on_exit(i, codes[i])
        finally:
            for child in running:  # only on an exception here: leave no child behind
                self._signal(child, signal.SIGKILL)
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


