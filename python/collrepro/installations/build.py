"""Source builds of MPI releases into a per-user cache, safe to interrupt and to repeat.

`build(recipe)` does, for `openmpi@5.0.7` say:

1. fetch the Debian source package of the release's suite (`installations/debian.py`: apt
   checks the files against the suite's signed index, dpkg-source checks the .dsc checksums)
   and unpack its upstream tarball (the pristine release, without Debian's packaging patches)
   into a work directory `<cache>/mpi/.build-<name>/`;
2. configure with the recipe's minimal options and `--prefix=<cache>/mpi/<name>`, then
   `make -j` with one progress line, everything logged to `<cache>/mpi/logs/<name>.log`;
3. `make install` into a staging directory (DESTDIR), never into the prefix itself;
   (a build stopped after a finished `make` resumes here: the work directory keeps the
   compiled tree and a `.make-done` record of its configure options)
4. smoke test in the staging directory: the probe program compiled against the staged headers
   and library, started on 2 processes with the staged launcher;
5. rename the staged tree into place, probe it once more through its own wrapper, and write
   the stamp `<prefix>/.collrepro-installation.json` last (atomically).

Only a prefix with a stamp is an installation: the registry lists nothing else, and a build
that finds a prefix without one (a build interrupted between steps 5's rename and the stamp)
removes it and starts again. A complete build is not repeated, unless the recipe's configure
options changed since (the stamp records them). One build per name at a time
(a lock file); the caller decides niceness and CPU sharing.
"""

import fcntl
import os
import resource
import shutil
import signal
import subprocess
import sys
import time

from collrepro import safeio
from collrepro.installations import debian as debian_source
from ..mpienv import RUN_AS_ROOT
from ..safeio import EnvironmentProblem, UserError
from . import probe, sourcetree
from .model import Installation, prefix_layout
from .recipes import Recipe

STAMP = ".collrepro-installation.json"


class BuildError(EnvironmentProblem, RuntimeError):
    """One line: which step failed, and where its log is."""


def installs_root():
    return os.path.join(debian_source.cache_root(), "mpi")


def prefix_of(name):
    return os.path.join(installs_root(), name)


def log_of(name):
    return os.path.join(installs_root(), "logs", f"{name}.log")


RECORD_LIMIT = 4 * safeio.MIB  # a stamp or a .make-done record is a few hundred bytes


def _read_record(path):
    """A JSON record this module wrote (a stamp, .make-done), or None when it is missing or
    damaged: without a whole record the prefix or work tree counts as unfinished, and the next
    build makes it again (which is what an interrupted write would need)."""
    if not os.path.exists(path):
        return None
    try:
        data = safeio.load_json_file(path, RECORD_LIMIT, "a build record")
    except UserError:
        return None
    return data if isinstance(data, dict) else None


def _stamp_data(prefix):
    return _read_record(os.path.join(prefix, STAMP))


def read_stamp(prefix):
    """The Installation recorded in a complete prefix, or None (no stamp, or unreadable)."""
    data = _stamp_data(prefix)
    try:
        return Installation.from_json(data) if data is not None else None
    except TypeError:
        return None


def _current(recipe, prefix):
    """The complete installation of `recipe` at `prefix`, built with the recipe's present options."""
    inst, data = read_stamp(prefix), _stamp_data(prefix)
    if inst is not None and data.get("recipe_options") == recipe.configure_options(prefix):
        return inst
    if inst is not None:
        _say(f"{recipe.name}: built with other configure options than the recipe's now: building it again")
    return None


def write_json_atomically(path, data):
    """safeio.write_json with sorted keys: whole or absent; the temporary file of an interrupted
    write is removed by the next one."""
    safeio.write_json(path, data, sort_keys=True)


class _Progress:
    """One status line for a long step: steps counted from the build's output, elapsed time."""

    MARKERS = ("CC", "CXX", "CCLD", "CXXLD", "GEN", "LN_S", "AR")

    def __init__(self, name, step, stream=sys.stderr):
        self.name, self.step, self.stream = name, step, stream
        self.start = time.monotonic()
        self.count, self.shown = 0, 0.0
        self.tty = stream.isatty()

    def line(self, text):
        if text.split(None, 1)[:1] and text.split(None, 1)[0] in self.MARKERS:
            self.count += 1
        now = time.monotonic()
        if now - self.shown >= (1 if self.tty else 60):
            self.shown = now
            self.show()

    def show(self, end=""):
        elapsed = int(time.monotonic() - self.start)
        text = f"[collmpi] {self.name}: {self.step}: {self.count} steps, {elapsed // 60}m{elapsed % 60:02d}s"
        if self.tty:
            self.stream.write("\r" + text + end)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def done(self):
        self.show(end="\n" if self.tty else "")


def _say(message):
    print(f"[collmpi] {message}", file=sys.stderr, flush=True)


def _run_logged(cmd, log, what, name, cwd=None, env=None):
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"\n$ {' '.join(cmd)}\n")
        f.flush()
        progress = _Progress(name, what)
        # its own process group, so that an interrupted build stops every compiler it started
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace", start_new_session=True)
        try:
            for line in proc.stdout:
                f.write(line)
                progress.line(line)
            rc = proc.wait()
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        progress.done()
    if rc != 0:
        raise BuildError(f"{name}: {what} failed (exit {rc}); see {log}")


def staged_smoke_test(kind, stage):
    """The probe compiled against the staged tree and run on 2 processes by its launcher."""
    inc, lib, bindir = (os.path.join(stage, d) for d in ("include", "lib", "bin"))
    env = dict(os.environ, LD_LIBRARY_PATH=lib, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    launcher = os.path.join(bindir, "mpirun" if kind == "openmpi" else "mpiexec")
    if kind == "openmpi":  # Open MPI and its PRRTE are relocatable through these
        env.update(RUN_AS_ROOT, OPAL_PREFIX=stage, PRTE_PREFIX=stage)
    compile_cmd = ["sh", "-c", f'cc -I"{inc}" "$0" -o "$2" -L"{lib}" -Wl,-rpath,"{lib}" -lmpi']
    return probe.run_probe(compile_cmd, [launcher, "-n", "2"], env)


def describe_prefix(name, kind, prefix, origin, configure=""):
    """The Installation of a `make install` prefix, with its identity probed; raises ProbeError."""
    kind_found, version = probe.kind_and_version(os.path.join(prefix, "bin"))
    inst = Installation(name=name, kind=kind_found, version=version, prefix=prefix, origin=origin,
                        configure=configure, **prefix_layout(kind_found, prefix))
    if kind and kind_found != kind:
        raise probe.ProbeError(f"{prefix} holds {kind_found} {version}, not {kind}")
    return inst


def _lock(name):
    os.makedirs(installs_root(), exist_ok=True)
    fd = os.open(os.path.join(installs_root(), f".{name}.lock"), os.O_CREAT | os.O_RDWR, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise BuildError(f"{name}: another build of it is running (lock {installs_root()}/.{name}.lock)")
    return fd


def build(recipe: Recipe, jobs=2):
    """Build `recipe` unless complete; returns (Installation, seconds spent, or 0 when reused)."""
    prefix = prefix_of(recipe.name)
    done = _current(recipe, prefix)
    if done is not None:
        return done, 0
    fd = _lock(recipe.name)
    try:
        return _build_locked(recipe, prefix, jobs)
    finally:
        os.close(fd)


MAKE_DONE = ".make-done"  # in the work directory: the compiled tree, with the configure options


def _compiled_tree(work, options):
    """The source tree of an earlier build whose `make` finished with these options, or None."""
    done = _read_record(os.path.join(work, MAKE_DONE))
    src = done.get("src") if isinstance(done, dict) else None
    return src if src and done.get("options") == options and os.path.isdir(src) else None


def _compile(recipe, prefix, work, log, jobs):
    """Fetch, unpack, prepare, configure and make; returns the compiled source tree."""
    _say(f"{recipe.name}: fetching the Debian source package ({recipe.suite}); log {log}")
    tree = debian_source.fetch(recipe.kind, recipe.suite, log=log)
    src = sourcetree.unpack(sourcetree.upstream_tarball(tree, recipe), os.path.join(work, "src"))
    sourcetree.prepare(recipe, src, lambda cmd, what, cwd: _run_logged(cmd, log, what, recipe.name, cwd=cwd))
    options = recipe.configure_options(prefix)
    _run_logged(["./configure"] + options, log, "configure", recipe.name, cwd=src)
    _run_logged(["make", f"-j{jobs}"], log, "make", recipe.name, cwd=src)
    write_json_atomically(os.path.join(work, MAKE_DONE), {"options": options, "src": src})
    return src


def _build_locked(recipe, prefix, jobs):
    if read_stamp(prefix) is not None and _stamp_data(prefix).get("recipe_options") == \
            recipe.configure_options(prefix):  # a concurrent build finished meanwhile
        return read_stamp(prefix), 0
    start, cpu_start = time.monotonic(), _children_cpu_seconds()
    log, work = log_of(recipe.name), os.path.join(installs_root(), f".build-{recipe.name}")
    os.makedirs(os.path.dirname(log), exist_ok=True)
    options = recipe.configure_options(prefix)
    src = _compiled_tree(work, options)  # an earlier build stopped after its make finished
    if os.path.exists(prefix):
        _say(f"{recipe.name}: removing the unfinished {prefix}")
        shutil.rmtree(prefix)
    if src is None and os.path.exists(work):
        _say(f"{recipe.name}: removing the unfinished {work}")
        shutil.rmtree(work)
    with open(log, "a" if src else "w", encoding="utf-8") as f:
        f.write(f"collmpi build {recipe.kind}@{recipe.version} (Debian suite {recipe.suite}); "
                f"load at start {os.getloadavg()[0]:.2f}" + (f"; make already done in {src}" if src else "") + "\n")
    if src is None:
        src = _compile(recipe, prefix, work, log, jobs)
    else:
        _say(f"{recipe.name}: reusing the compiled tree of an earlier build ({src})")
    destdir = os.path.join(work, "destdir")
    shutil.rmtree(destdir, ignore_errors=True)
    _run_logged(["make", "install", f"DESTDIR={destdir}"], log, "make install", recipe.name, cwd=src)
    stage = destdir + prefix
    _say(f"{recipe.name}: smoke test (2 processes, staged)")
    try:
        staged_smoke_test(recipe.kind, stage)
    except probe.ProbeError as e:
        raise BuildError(f"{recipe.name}: smoke test failed: {e}; see {log}")
    os.rename(stage, prefix)
    inst = _finish(recipe, prefix, options)
    shutil.rmtree(work, ignore_errors=True)
    seconds = time.monotonic() - start
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"built in {seconds:.0f} s wall, {_children_cpu_seconds() - cpu_start:.0f} s CPU (user + system); "
                f"load at end {os.getloadavg()[0]:.2f}\n")
    return inst, seconds


def _children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _finish(recipe, prefix, options):
    """Probe the renamed prefix through its own wrapper and launcher, then write the stamp."""
    try:
        inst = describe_prefix(recipe.name, recipe.kind, prefix, "built")
        tool = os.path.join(prefix, "bin", probe.TOOLS[inst.kind])
        inst.configure = probe.configure_options(inst.kind, tool) or " ".join(options)
        if inst.version != recipe.version:
            raise probe.ProbeError(f"it reports version {inst.version}, not {recipe.version}")
        probe.run_probe([inst.mpicc], [inst.launcher, "-n", "2"], build_env(inst))
    except probe.ProbeError as e:
        shutil.rmtree(prefix, ignore_errors=True)
        raise BuildError(f"{recipe.name}: the installed prefix fails its probe: {e}")
    write_json_atomically(os.path.join(prefix, STAMP), dict(inst.to_json(), recipe_options=options))
    return inst


def build_env(inst):
    """The environment to compile and start programs with `inst`, as root too (a derived
    installation: its base's, without the preloaded library)."""
    inst = getattr(inst, "base_installation", None) or inst
    env = inst.environment()
    if inst.kind == "openmpi" and os.geteuid() == 0:
        env.update(RUN_AS_ROOT)
    return env
