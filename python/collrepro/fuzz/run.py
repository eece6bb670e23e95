"""Running one fuzz case: the C program (fuzz/intercase.c) built with each installation's own
`mpicc`, launched with its launcher, plainly (the MPI library's native call) or under the PMPI
library with an algorithm forced (the project's), killed at a timeout (a hang).

A target is (installation, algorithm): `native` (no library), `defaults` (the library preloaded,
nothing forced: what it selects) or a registered algorithm's name (COLLREPRO_PMPI_FORCE).
"""

import hashlib
import json
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass

from ..installations import collbench, derived
from ..installations.build import build_env
from ..mpienv import OVERSUBSCRIBE_FLAGS, mpi_environment
from ..safeio import EnvironmentProblem
from . import cases

REPO = collbench.REPO
SOURCE = os.path.join(REPO, "fuzz", "intercase.c")
YIELD_SOURCE = os.path.join(REPO, "fuzz", "mpich_yield.c")
NATIVE, DEFAULTS = "native", "defaults"
# How a launch ended.
OK, MISMATCH, ERROR, HANG, CRASH = "ok", "mismatch", "error", "hang", "crash"
BAD, UNAVAILABLE = "bad case", "unavailable"
FAILURES = (MISMATCH, ERROR, HANG, CRASH)


@dataclass
class Library:
    """One installed MPI library the fuzzer runs: its installation, the case program built for
    it, and its PMPI library ('' when none is built: the project's algorithms are then skipped);
    `idle_yield`, for an MPICH library, fuzz/mpich_yield.c built for it, which every launch
    preloads so that waiting ranks give up the core ('' for other libraries)."""
    inst: object
    program: str
    pmpi: str
    idle_yield: str = ""

    @property
    def name(self):
        return self.inst.name


def _built(inst, cache_dir, source, stem, flags):
    """`source` compiled with `inst`'s mpicc and `flags` into cache_dir/<name>/<stem>-<hash> (kept
    while the source is unchanged: the file name carries its hash)."""
    with open(source, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:12]
    out_dir = os.path.join(cache_dir, inst.name)
    out = os.path.join(out_dir, f"{stem}-{digest}")
    if os.path.isfile(out):
        return out
    if not os.access(inst.mpicc, os.X_OK):
        raise EnvironmentProblem(f"{inst.name}: its C wrapper {inst.mpicc} is missing")
    os.makedirs(out_dir, exist_ok=True)
    tmp = f"{out}.tmp{os.getpid()}"
    p = subprocess.run([inst.mpicc, *flags, "-o", tmp, source], capture_output=True, text=True,
                       env=build_env(inst))
    if p.returncode != 0:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise EnvironmentProblem(f"{inst.name}: `{inst.mpicc} {os.path.relpath(source, REPO)}` failed: "
                                 f"{(p.stderr.strip().splitlines() or ['no output'])[-1]}")
    os.replace(tmp, out)
    return out


def program_for(inst, cache_dir):
    """fuzz/intercase.c built for `inst`."""
    return _built(inst, cache_dir, SOURCE, "intercase", ["-O1", "-g"])


def idle_yield_for(inst, cache_dir):
    """fuzz/mpich_yield.c built for an MPICH installation (a shared library; '' for others)."""
    if inst.kind != "mpich":
        return ""
    return _built(inst, cache_dir, YIELD_SOURCE, "libmpich_yield.so",
                  ["-O2", "-shared", "-fPIC", "-ldl"])


def library(inst, cache_dir, pmpi=None):
    """The Library of `inst`: its case program, and its PMPI library (`pmpi`, or the one built
    in this clone for it)."""
    path = pmpi if pmpi is not None else derived.pmpi_library(inst)
    return Library(inst, program_for(inst, cache_dir), path if path and os.path.isfile(path) else "",
                   idle_yield_for(inst, cache_dir))


def algorithms(collbench_exe):
    """{collective: [(name, calls, duplex)]} of the registered non-native inter-group algorithms."""
    out = subprocess.run([collbench_exe, "--list-algorithms", "--format", "json"], capture_output=True, text=True,
                         check=True).stdout
    found = {}
    for a in json.loads(out)["algorithms"]:
        if a["collective"] in cases.COLLECTIVES and a["kind"] != "native":
            found.setdefault(a["collective"], []).append((a["name"], a["calls"], a["duplex"]))
    return found


def targets(case, lib, algos, only=None):
    """The targets a case runs on for `lib`: native, then (with a PMPI library) the defaults and
    every algorithm that offers the case's form and duplex (others would pass it to the MPI
    library unchanged, which `defaults` and `native` already cover)."""
    names = [NATIVE]
    if lib.pmpi:
        names.append(DEFAULTS)
        for name, calls, duplex in algos.get(case["coll"], []):
            if case["form"] not in calls or (duplex == "half" and not cases.half_duplex(case)):
                continue
            names.append(name)
    return [n for n in names if only is None or n in only]


def _env_flags(kind, variables):
    flags = []
    for k, v in variables.items():
        flags += ["-x", f"{k}={v}"] if kind == "openmpi" else ["-genv", k, v]
    return flags


def command(np, lib, target, args, report=None):
    """The launch of the case program with `args` on np processes and `target` (argv, environment)."""
    inst = lib.inst
    env = mpi_environment(inst.kind, oversubscribed=True, base=build_env(inst))
    variables = {}
    preload = [lib.idle_yield] if lib.idle_yield else []
    if target != NATIVE:
        preload.insert(0, lib.pmpi)
        if target != DEFAULTS:
            variables["COLLREPRO_PMPI_FORCE"] = target
        if report:
            variables["COLLREPRO_PMPI_REPORT"] = report
    if preload:
        variables["LD_PRELOAD"] = ":".join(preload)
    head = [inst.launcher, "-n", str(np)] + OVERSUBSCRIBE_FLAGS.get(inst.kind, [])
    return head + _env_flags(inst.kind, variables) + [lib.program, *args], env


@dataclass
class Outcome:
    kind: str        # ok, mismatch, error, hang, crash, unavailable
    seconds: float
    detail: str      # the verdict line and what the processes printed before it


VERDICT = re.compile(r"^intercase: case (\d+) (ok|MISMATCH|ERROR|bad case|unavailable)\b(.*)$")
KINDS = {"ok": OK, "MISMATCH": MISMATCH, "ERROR": ERROR, "bad case": BAD, "unavailable": UNAVAILABLE}


@dataclass
class Batch:
    """One launch's worth: its cases' outcomes (in order), what the PMPI library's report says
    it served ({collective: {algorithm: calls}}), and its launches (1, or more after a crash or
    a hang cut it short)."""
    outcomes: list
    served: dict
    launches: int
    seconds: float


def _served(report):
    found = {}
    if report and os.path.exists(report):
        with open(report, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"collrepro-pmpi: served (\S+) (\S+) (\d+)$", line.strip())
                if m:
                    found.setdefault(m.group(1), {})[m.group(2)] = int(m.group(3))
    return found


def _kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _read_verdicts(p, timeout):
    """Yields (line, None) as the processes print, and (None, 'hang') when no case ends within
    `timeout` seconds; the caller stops reading after a hang."""
    last = time.monotonic()
    buf = b""
    fd = p.stdout.fileno()
    while True:
        left = last + timeout - time.monotonic()
        if left <= 0:
            yield None, HANG
            return
        ready, _, _ = select.select([fd], [], [], min(left, 1.0))
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            if buf:
                yield buf.decode(errors="replace"), None
            return
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace")
            if VERDICT.match(line):
                last = time.monotonic()
            yield line, None


def _one_launch(batch_file, first, lib, target, np, timeout, report):
    """Runs the batch from line `first`; ({line index: Outcome}, how it ended: 'exit N' or
    'hang', the lines after the last verdict)."""
    argv, env = command(np, lib, target, ["-f", batch_file, str(first)], report)
    start = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    found, pending, ended = {}, [], None
    try:
        for line, event in _read_verdicts(p, timeout):
            if event == HANG:
                ended = HANG
                break
            m = VERDICT.match(line)
            if m:
                kind = KINDS[m.group(2)]
                detail = " | ".join([ln for ln in pending if "intercase:" in ln][:3] + [line])
                found[int(m.group(1))] = Outcome(kind, time.monotonic() - start, detail[:600])
                start, pending = time.monotonic(), []
            elif line.strip():
                pending.append(line.strip())
    except BaseException:
        _kill_group(p)
        p.wait()
        raise
    if ended == HANG:
        _kill_group(p)
        p.wait()
    else:
        try:
            p.wait(timeout=timeout)
            ended = f"exit {p.returncode}"
        except subprocess.TimeoutExpired:
            _kill_group(p)
            p.wait()
            ended = HANG
    return found, ended, pending


def launch(batch, lib, target, timeout):
    """Runs the cases of `batch` (one world size) on `target` in as few launches as it can: a
    crash or a hang ends a launch; its case is marked so and the rest run in a new launch. The
    Batch."""
    np = batch[0]["np"]
    scratch = tempfile.mkdtemp(prefix="collrepro-fuzz-")
    path = os.path.join(scratch, "cases.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(cases.to_line(c) + "\n" for c in batch))
    outcomes, served, launches, first, start = {}, {}, 0, 0, time.monotonic()
    try:
        while first < len(batch):
            report = os.path.join(scratch, f"report-{launches}.txt")
            found, ended, tail = _one_launch(path, first, lib, target, np, timeout, report)
            launches += 1
            for coll, by in _served(report).items():
                for name, calls in by.items():
                    served.setdefault(coll, {}).setdefault(name, 0)
                    served[coll][name] += calls
            outcomes.update(found)
            missing = [k for k in range(first, len(batch)) if k not in outcomes]
            if not missing:
                break
            k = missing[0]  # the case the launch died or hung in
            what = (f"no end within {timeout:g} s" if ended == HANG else
                    f"{ended} before its verdict: " + " | ".join(tail[-3:]))
            outcomes[k] = Outcome(HANG if ended == HANG else CRASH, 0.0, what[:600])
            first = k + 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return Batch([outcomes[k] for k in range(len(batch))], served, launches, time.monotonic() - start)


def launch_one(case, lib, target, timeout):
    """One case alone, in a launch of its own: its Outcome."""
    return launch([case], lib, target, timeout).outcomes[0]
