"""The machinery of the fault matrix (tests/faults/README.md): running a writer (as its real
command, or forked from a process that has its libraries imported already), signalling it at a
chosen moment, filling a small tmpfs, and comparing output trees.

Nothing here knows a particular writer; writers.py holds the table."""

import contextlib
import hashlib
import io
import os
import re
import runpy
import shutil
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PY = "/usr/bin/python3"
PAGE = 4096
ENOSPC_TEXT = "No space left on device"

# Names a writer uses for work in progress: safeio's `.<name>.collrepro-tmp-<pid>` and
# `.collrepro-old-<pid>`, the older `<name>.tmp`, `<name>.tmp-<pid>`, `.<name>.tmp-<pid>`,
# `.<name>.old-<pid>`, `<name>.tmp<pid>`, `<name>.tmp.part`, `<name>.part`. collbench's `.tmp` result files are
# legitimate while a launch is incomplete; after a complete run none may remain.
TEMP_RE = re.compile(r"(collrepro-(tmp|old)-\d+$)|(\.(tmp|old)(-?\d+)?$)|(\.tmp\.part$)|(\.part$)")

# Timestamps masked before text files are compared (runs of the same input differ only there).
TIMESTAMP_RE = re.compile(rb"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?")


def is_temporary(name):
    return bool(TEMP_RE.search(name))


# ------------------------------------------------------------------ output trees

def file_token(path):
    """What is compared of one file: PDFs (their creation date differs between runs) and PNGs
    only for being whole (the format's end marker), text with timestamps masked, the rest byte
    for byte."""
    data = Path(path).read_bytes()
    suffix = Path(path).suffix.lower()
    if suffix == ".pdf":
        return ("pdf", data.rstrip().endswith(b"%%EOF"))
    if suffix == ".png":
        return ("png", data.endswith(b"IEND\xaeB`\x82"))
    return ("sha", hashlib.sha256(TIMESTAMP_RE.sub(b"<time>", data)).hexdigest())


def unit_state(path):
    """The comparable state of an output unit (a file or a directory), temporaries left out;
    None when it does not exist."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return None
    if path.is_file():
        return {"": file_token(path)}
    state = {".": ("dir",)}
    for dirpath, dirnames, filenames in os.walk(path):
        rel = Path(dirpath).relative_to(path)
        dirnames[:] = [d for d in dirnames if not is_temporary(d)]
        for d in dirnames:
            state[str(rel / d)] = ("dir",)
        for f in filenames:
            if not is_temporary(f):
                state[str(rel / f)] = file_token(Path(dirpath) / f)
    return state


def state_diff(a, b, limit=3):
    """A short description of how unit state b differs from a."""
    if a is None or b is None:
        return "it is absent" if b is None else "it exists (want none)"
    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))
    changed = sorted(k for k in set(a) & set(b) if a[k] != b[k])
    parts = []
    if only_a:
        parts.append("missing " + ", ".join(only_a[:limit]) + (" ..." if len(only_a) > limit else ""))
    if only_b:
        parts.append("extra " + ", ".join(only_b[:limit]) + (" ..." if len(only_b) > limit else ""))
    if changed:
        parts.append("differs " + ", ".join(changed[:limit]) + (" ..." if len(changed) > limit else ""))
    return "; ".join(parts) or "equal"


def listing(root):
    """Every path under root (relative; directories end with /)."""
    root = Path(root)
    out = set()
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        out.update(str(rel / d) + "/" for d in dirnames)
        out.update(str(rel / f) for f in filenames)
    return out


def tree_size_pages(paths):
    """The 4 KiB pages the files under `paths` take on a tmpfs."""
    pages = 0
    for p in map(Path, paths):
        files = [p] if p.is_file() else [Path(d) / f for d, _, fs in os.walk(p) for f in fs] if p.is_dir() else []
        pages += sum(-(-f.stat().st_size // PAGE) for f in files)
    return pages


def copy_entry(src, dst):
    src, dst = Path(src), Path(dst)
    if src.is_dir():
        shutil.copytree(src, dst, symlinks=True)
    else:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)


def restore_unit(saved, target):
    """Put the saved previous output back at `target`, leaving any temporaries a fault left
    beside or inside it where they are (the next successful run must remove them)."""
    saved, target = Path(saved), Path(target)
    if target.is_dir() and not target.is_symlink() and saved.is_dir():
        for dirpath, dirnames, filenames in os.walk(target, topdown=False):
            for f in filenames:
                if not is_temporary(f) and not any(is_temporary(part) for part in Path(dirpath).relative_to(target).parts):
                    os.unlink(Path(dirpath) / f)
            for d in dirnames:
                full = Path(dirpath) / d
                if not is_temporary(d) and full.is_dir() and not any(full.iterdir()):
                    full.rmdir()
        shutil.copytree(saved, target, symlinks=True, dirs_exist_ok=True)
        return
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif target.exists() or target.is_symlink():
        target.unlink()
    if saved.exists():
        copy_entry(saved, target)


# ------------------------------------------------------------------ commands

@dataclass
class Command:
    """One run of a writer. program + args: the real command (its wrapper script and the
    arguments). fork: the same program inside this process's preloaded interpreter:
    ("verb", WORDS) for `collrepro-py WORDS` (the front door), ("path", FILE) for a Python
    script, run with sys.argv = [prog] + args; None: always run the real command."""
    program: list
    args: list
    prog: str
    fork: tuple = None
    env: dict = field(default_factory=dict)
    cwd: Path = None


@dataclass
class Outcome:
    rc: int                 # exit code; -N: killed by signal N
    stdout: str
    stderr: str
    seconds: float
    first_change: float = None   # seconds until the watched tree first changed
    signal_sent: bool = False
    timed_out: bool = False

    def stderr_lines(self):
        return [line for line in self.stderr.splitlines() if line.strip()]


def base_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "python") + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["MPLBACKEND"] = "Agg"
    env.pop("COLLREPRO_DEBUG", None)
    return env


def preload(modules):
    """Import what the forked writers need once, here (a writer's run is then its own work,
    not 2 s of imports). A module that does not import is left to the child."""
    for name in modules:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - the child will report it
            pass
    with contextlib.suppress(Exception):
        import matplotlib
        matplotlib.use("Agg")


def _child(cmd, out_path, err_path, env, gate=None):
    """The forked child: become the command and never return. With `gate` (a pipe's read end)
    it first waits for one byte: the parent attaches strace meanwhile."""
    code = 70
    try:
        if gate is not None:
            os.read(gate, 1)
            os.close(gate)
        os.chdir(cmd.cwd or os.getcwd())
        os.environ.clear()
        os.environ.update(env)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, path in ((1, out_path), (2, err_path)):
            f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(f, fd)
            os.close(f)
        sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), line_buffering=True)
        sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), line_buffering=True)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGPIPE, signal.SIGUSR1):
            signal.signal(sig, signal.SIG_DFL if sig != signal.SIGINT else signal.default_int_handler)
        kind, target = cmd.fork
        sys.argv = [str(target) if kind == "path" else cmd.prog] + [str(a) for a in cmd.args]
        try:
            if kind == "verb":
                from collrepro import frontdoor
                sys.exit(frontdoor.main([*target.split(), *sys.argv[1:]]))
            else:
                runpy.run_path(str(target), run_name="__main__")
            code = 0
        except SystemExit as e:
            if e.code is None:
                code = 0
            elif isinstance(e.code, int):
                code = e.code
            else:
                print(e.code, file=sys.stderr)
                code = 1
        except KeyboardInterrupt:
            traceback.print_exc()
            code = 130
        except BaseException:  # noqa: BLE001 - what `python3 -m` does: a traceback, exit 1
            traceback.print_exc()
            code = 1
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
    finally:
        os._exit(code & 0xFF if code >= 0 else 70)


def _signature(root):
    try:
        return frozenset((p, os.stat(Path(root) / p.rstrip("/")).st_size) for p in listing(root))
    except OSError:
        return None


# The system calls the syscall-anchored faults count (strace -e trace=...): those that create,
# write, rename or remove files and directories.
TRACED = ("openat", "creat", "write", "pwrite64", "writev", "rename", "renameat", "renameat2", "mkdir", "mkdirat",
          "unlink", "unlinkat", "rmdir", "fsync", "fdatasync", "ftruncate", "fallocate")
STRACE = shutil.which("strace")


def _strace_args(log, inject):
    if inject is not None:
        name, nth, sig = inject
        return ["-qq", "-o", os.devnull, "-e", f"trace={name}", "-e", f"inject={name}:signal={int(sig)}:when={nth}"]
    return ["-qq", "-y", "-o", str(log), "-e", "trace=" + ",".join(TRACED)]


def _attach(pid, log, inject):
    """strace attached to `pid` (waiting on its gate); None when ptrace is refused."""
    tracer = subprocess.Popen([STRACE, "-p", str(pid), *_strace_args(log, inject)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and tracer.poll() is None:
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{pid}/status").read_text()
            if re.search(r"^TracerPid:\s*[1-9]", status, re.M):
                return tracer
        time.sleep(0.002)
    with contextlib.suppress(ProcessLookupError):
        tracer.kill()
    tracer.wait()
    return None


def trace_moments(log, root):
    """From a trace of a run: (syscall, its ordinal among that syscall's calls) for every call
    that changes something under `root`, in order."""
    counts, moments = {}, []
    root = str(root)
    for line in Path(log).read_text(errors="replace").splitlines():
        m = re.match(r"^(\w+)\((.*)", line)
        if not m or m.group(1) not in TRACED:
            continue
        name, rest = m.groups()
        counts[name] = counts.get(name, 0) + 1
        if root not in rest:
            continue
        if name == "openat" and not re.search(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC", rest):
            continue
        if counts[name] <= 65535:  # strace's largest when=
            moments.append((name, counts[name]))
    return moments


def can_trace():
    """Whether strace can attach to a child of this process here (installed; ptrace allowed to a
    sibling: no Yama restriction, CAP_SYS_PTRACE in a container); the reason when not."""
    if STRACE is None:
        return False, "strace is not installed"
    gate_r, gate_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(gate_w)
        os.read(gate_r, 1)
        os._exit(0)
    os.close(gate_r)
    tracer = _attach(pid, None, ("getpid", 1, signal.SIGUSR1))
    os.write(gate_w, b"g")
    os.close(gate_w)
    os.waitpid(pid, 0)
    if tracer is None:
        return False, "strace cannot attach here (ptrace refused)"
    tracer.wait()
    return True, ""


def last_text(text):
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:160] if lines else "(no output)"


def run(cmd, logdir, mode="fork", watch=None, fault=None, timeout=300, target_pids=None, trace=None, inject=None):
    """Run `cmd`; with fault=(when, signal) send that signal once `when` seconds have passed, or
    once when(seconds, first_change) is true (to the process, or to target_pids(pid) when given:
    the MPI ranks). With `watch`, record when the tree under that directory first changes.
    Under strace: trace=LOG writes the file system calls to LOG; inject=(syscall, n, signal)
    delivers the signal as the process enters its n-th call of that syscall. Returns an Outcome."""
    logdir = Path(logdir)
    logdir.mkdir(parents=True, exist_ok=True)
    out_path, err_path = logdir / "stdout", logdir / "stderr"
    out_path.write_bytes(b"")  # there even when a signal comes before the child opens them
    err_path.write_bytes(b"")
    env = base_env()
    for key, value in cmd.env.items():  # None: unset
        if value is None:
            env.pop(key, None)
        else:
            env[key] = str(value)
    start_sig = _signature(watch) if watch is not None else None
    sys.stdout.flush()
    sys.stderr.flush()
    t0 = time.monotonic()
    traced = trace is not None or inject is not None
    tracer = None
    if mode == "fork" and cmd.fork is not None:
        gate_r, gate_w = os.pipe() if traced else (None, None)
        pid = os.fork()
        if pid == 0:
            if gate_w is not None:
                os.close(gate_w)
            _child(cmd, out_path, err_path, env, gate_r)
        proc = None
        if traced:
            os.close(gate_r)
            tracer = _attach(pid, trace, inject)
            if tracer is None:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                os.close(gate_w)
                raise RuntimeError(f"strace could not attach to {pid}")
            os.write(gate_w, b"g")
            os.close(gate_w)
        t0 = time.monotonic()
    else:
        argv = [str(a) for a in cmd.program + cmd.args]
        if traced:
            argv = [STRACE, *_strace_args(trace, inject), "--", *argv]
        with open(out_path, "wb") as o, open(err_path, "wb") as e:
            proc = subprocess.Popen(argv, stdout=o, stderr=e, stdin=subprocess.DEVNULL, cwd=cmd.cwd, env=env)
        pid = proc.pid
    first_change = None
    sent = False
    timed_out = False
    rc = None
    while True:
        if proc is not None:
            rc = proc.poll()
        else:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                rc = os.waitstatus_to_exitcode(status)
        now = time.monotonic() - t0
        if rc is not None:
            break
        if watch is not None and first_change is None and _signature(watch) != start_sig:
            first_change = now
        if fault is not None and not sent and (fault[0](now, first_change) if callable(fault[0]) else now >= fault[0]):
            targets = target_pids(pid) if target_pids else [pid]
            for t in targets:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(t, fault[1])
            sent = bool(targets)
        if now > timeout and not timed_out:
            timed_out = True
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.004)
    seconds = time.monotonic() - t0
    if tracer is not None:
        try:
            tracer.wait(timeout=10)
        except subprocess.TimeoutExpired:
            tracer.kill()
            tracer.wait()
    if watch is not None and first_change is None and _signature(watch) != start_sig:
        first_change = seconds
    return Outcome(rc=rc, stdout=out_path.read_text(errors="replace"), stderr=err_path.read_text(errors="replace"),
                   seconds=seconds, first_change=first_change, signal_sent=sent, timed_out=timed_out)


def descendants(pid, name):
    """The descendants of pid whose command name is `name` (truncated as /proc shows it)."""
    todo, out = [pid], []
    while todo:
        p = todo.pop()
        try:
            children = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            children = []
        for c in map(int, children):
            todo.append(c)
            with contextlib.suppress(OSError):
                if Path(f"/proc/{c}/comm").read_text().strip() == name[:15]:
                    out.append(c)
    return out


# ------------------------------------------------------------------ a full disk

class Tmpfs:
    """A tmpfs of `mib` MiB at `path` (mounted by the test, unmounted on exit); .ok is False
    when mounting is refused (not root, a container without CAP_SYS_ADMIN)."""

    def __init__(self, path, mib):
        self.path = Path(path)
        self.mib = mib
        self.ok = False
        self.why = ""
        self.filler = self.path / ".fault-filler"

    def __enter__(self):
        self.path.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.mib}m,mode=0755", "tmpfs", str(self.path)],
                              capture_output=True, text=True)
        self.ok = proc.returncode == 0
        self.why = (proc.stderr.strip() or proc.stdout.strip() or f"mount exit {proc.returncode}").splitlines()[-1] \
            if not self.ok else ""
        return self

    def __exit__(self, *exc):
        if self.ok:
            for attempt in range(20):
                proc = subprocess.run(["umount", str(self.path)], capture_output=True, text=True)
                if proc.returncode == 0:
                    break
                time.sleep(0.25)
            else:
                subprocess.run(["umount", "-l", str(self.path)], capture_output=True)
        return False

    def free_pages(self):
        st = os.statvfs(self.path)
        return st.f_bavail * st.f_frsize // PAGE

    def fill(self, leave_pages):
        """Take all free space but `leave_pages` pages; returns the pages left."""
        self.unfill()
        take = self.free_pages() - leave_pages
        if take > 0:
            fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                os.posix_fallocate(fd, 0, take * PAGE)
            finally:
                os.close(fd)
        return self.free_pages()

    def unfill(self):
        with contextlib.suppress(FileNotFoundError):
            self.filler.unlink()
