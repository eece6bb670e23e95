"""One array task of a collslurm submission, run by its batch script (slurm/array.sbatch.in).

The task id picks the launch and slice; collbench then runs under the launcher through
collrepro.launch.launcher, which also passes on the signals Slurm sends (scancel, the time limit,
--signal=B:USR1@...) as SIGTERM: collbench stops after the current repetition, keeps every
finished point and exits 143, and a resubmission resumes. The task records its state in
tasks/task-<t>.job-<id>.json: "running", then "done", "interrupted" or "failed" with the
launcher's exit code.
"""

import os
import shlex
import signal
import socket
import time
from pathlib import Path

from collrepro import safeio
from collrepro.cliargs import ArgumentParser
from collrepro.launch.launcher import Forwarder, Launcher
from collrepro.mpienv import mpi_environment
from collrepro.slurm.plan import launch_slice_of
from collrepro.slurm.state import utc_now, write_json

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGUSR1, signal.SIGUSR2)


def _parser():
    p = ArgumentParser(prog="collslurm task", description=__doc__.split("\n\n")[0])
    p.add_argument("--results", required=True, help="the submission's results directory")
    p.add_argument("--collbench", required=True)
    p.add_argument("--config", required=True, help="the config without its slurm: section")
    p.add_argument("--slices", type=int, required=True)
    p.add_argument("--tasks", type=int, required=True)
    p.add_argument("--np", type=int, required=True)
    p.add_argument("--mpi", required=True, choices=("openmpi", "mpich"))
    p.add_argument("--launcher", required=True, choices=("mpirun", "srun"))
    p.add_argument("--mpiexec", required=True, help="the build's own mpirun/mpiexec")
    p.add_argument("--srun-mpi", required=True)
    p.add_argument("--overcommit", type=int, choices=(0, 1), default=0, help="1: more processes than CPUs")
    p.add_argument("--launcher-flag", action="append", default=[], help="one more launcher flag (repeatable)")
    p.add_argument("sets", nargs="*", help="after --: collbench --set overrides")
    return p


def _say(message):
    print(f"[collslurm] {message}", flush=True)


def _task_id(tasks):
    """SLURM_ARRAY_TASK_ID as a number inside the array; UserError (exit 2) when it is not."""
    text = os.environ.get("SLURM_ARRAY_TASK_ID", "")
    if not text.isdigit():
        raise safeio.UserError("SLURM_ARRAY_TASK_ID is not set: submit with collslurm (sbatch --array=...)")
    if int(text) >= tasks:
        raise safeio.UserError(f"task {text} is outside this array (0..{tasks - 1})")
    return int(text)


class StatusFile:
    """tasks/task-<t>.job-<id>.json of one attempt."""

    def __init__(self, results, task, launch, slc):
        self.path = Path(results) / "tasks" / f"task-{task}.job-{os.environ.get('SLURM_JOB_ID') or 'none'}.json"
        self.start = int(time.time())
        self.fields = {"task": task, "launch": launch, "slice": slc,
                       "array_job_id": os.environ.get("SLURM_ARRAY_JOB_ID", ""),
                       "job_id": os.environ.get("SLURM_JOB_ID", ""), "host": socket.gethostname().split(".")[0]}

    def write(self, state, exit_code=None, end_utc=None):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        start_utc = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.start))
        write_json(self.path, {**self.fields, "state": state, "exit_code": exit_code, "start_utc": start_utc,
                               "start_epoch": self.start, "end_utc": end_utc}, indent=None)


def outcome(rc, received):
    """done, interrupted or failed. Open MPI's mpirun exits 1 rather than 143 after forwarding a
    SIGTERM: with a signal received, any failure counts as interrupted."""
    if rc == 0:
        return "done"
    if rc in (130, 143) or received is not None:
        return "interrupted"
    return "failed"


def _command(a, launch, slc):
    args = [a.config, "--out", a.results, "--launch", str(launch)]
    if a.slices > 1:
        args += ["--slice", f"{slc}/{a.slices}"]
    launcher = Launcher(a.mpi, via=a.launcher, program=a.mpiexec, oversubscribe=bool(a.overcommit),
                        srun_mpi=a.srun_mpi, flags=a.launcher_flag)
    return launcher.command(a.np, [a.collbench] + args + a.sets)


def main(argv=None):
    """Run this array task; returns the launcher's exit code (UserError, exit 2, outside an array)."""
    a = _parser().parse_args(argv)
    task = _task_id(a.tasks)
    launch, slc = launch_slice_of(task, a.slices)
    cmd = _command(a, launch, slc)
    status = StatusFile(a.results, task, launch, slc)
    job = f"{os.environ.get('SLURM_ARRAY_JOB_ID') or '?'}_{task} (id {os.environ.get('SLURM_JOB_ID') or '?'})"
    _say(f"task {task} = launch {launch}, slice {slc}/{a.slices} on {status.fields['host']}, job {job}")
    _say(shlex.join(cmd))
    status.write("running")
    with Forwarder(FORWARDED, translate={sig: signal.SIGTERM for sig in FORWARDED}) as fwd:
        rc = fwd.run(cmd, mpi_environment(a.mpi, oversubscribed=bool(a.overcommit)))
    state = outcome(rc, fwd.received)
    status.write(state, rc, utc_now())
    after = f", after {signal.Signals(fwd.received).name}" if fwd.received is not None else ""
    _say(f"task {task}: {state} (exit {rc}{after})")
    return rc

