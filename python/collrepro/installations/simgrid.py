"""SimGrid 3.32 with constant-time removal of finished activities, built from Debian's source.

Debian 12 ships SimGrid 3.32. Its engine keeps every detached communication in one list of the
maestro actor and drops a finished one with `std::list::remove`, a walk over the whole list.
SMPI detaches every send under `smpi/send-is-detached-thresh` (64 KiB), so at 2048 simulated
ranks each message costs a walk over about 2048 nodes: more than half of a 2048-rank paper
run's CPU (results/sim/README.md). SimGrid 3.34 removed that walk; bookworm has no newer
SimGrid to install.

This module builds the same 3.32 with one change: an actor's pending activities become
`bench/sim/simgrid/ActivityList.hpp`, the same list in the same order plus an index, so
removal no longer walks. The simulation takes the same steps and gives the same results:
`unit.ActivityList.*` checks the list against std::list::remove, and results/sim/README.md
("The fast SimGrid") compares medians with the packaged library's.

How:
- the source is Debian's own package for this machine's release (`debian.fetch`);
- the edit is checked: `ActorImpl.hpp` must declare `activities_` exactly as 3.32 does,
  else the build stops and says so (another SimGrid needs no edit, or a new one);
- cmake builds the library, SMPI and its tools only (no Java, Python, Fortran, ns-3, docs),
  with SimGrid's own optimization (-O3, LTO) and ccache when present, into the per-user cache:
  `${XDG_CACHE_HOME:-~/.cache}/collrepro/simgrid/<version>+activity-list/`;
- the prefix counts only with its `.complete` stamp, so an interrupted build is never used;
  the next call starts it again (ccache makes that quick).

`collrepro-py sim simgrid build` builds it (12 min on a 2-core VM, cold); `... prefix` prints
the prefix or exits 5. `bench/sim/simrun --simgrid fast` (and `bench/sim/paper`) run on it.
"""

import fcntl
import os
import re
import shutil
import subprocess
import sys
import time

from collrepro import paths, safeio
from collrepro.cliargs import ArgumentParser
from collrepro.installations import debian
from collrepro.safeio import EnvironmentProblem

EDIT = "activity-list"
HEADER = os.path.join(paths.REPO, "bench", "sim", "simgrid", "ActivityList.hpp")
# The one declaration 3.32 has and the edit replaces (src/kernel/actor/ActorImpl.hpp).
DECLARATION = re.compile(r"^(\s*)std::list<activity::ActivityImplPtr> activities_;", re.M)
CMAKE_OPTIONS = ["-DCMAKE_BUILD_TYPE=", "-Denable_compile_optimizations=ON", "-Denable_smpi=ON",
                 "-Denable_java=OFF", "-Denable_msg=OFF", "-Denable_python=OFF", "-Denable_fortran=OFF",
                 "-Denable_ns3=OFF", "-Denable_documentation=OFF", "-Denable_model-checking=OFF",
                 "-Denable_smpi_MPICH3_testsuite=OFF", "-Denable_smpi_MBI_testsuite=OFF"]
STAMP = ".complete"


class SimGridBuildError(EnvironmentProblem, RuntimeError):
    """One line: which step failed and where its log is."""


def root():
    return os.path.join(debian.cache_root(), "simgrid")


def prefix_for(version):
    return os.path.join(root(), f"{version.replace(':', '_')}+{EDIT}")


def installed(version=None):
    """The complete prefix of the fast SimGrid, or None. Without a version: any complete one."""
    if version:
        p = prefix_for(version)
        return p if os.path.exists(os.path.join(p, STAMP)) else None
    found = sorted(d for d in _entries(root()) if d.endswith(f"+{EDIT}")
                   and os.path.exists(os.path.join(root(), d, STAMP)))
    return os.path.join(root(), found[-1]) if found else None


def _entries(path):
    try:
        return os.listdir(path)
    except FileNotFoundError:
        return []


def apply_edit(tree):
    """Make ActorImpl's pending activities an ActivityList in the unpacked source `tree`."""
    target = os.path.join(tree, "src", "kernel", "actor", "ActorImpl.hpp")
    with open(target, encoding="utf-8") as f:
        text = f.read()
    found = DECLARATION.findall(text)
    if len(found) != 1:
        raise SimGridBuildError(f"{target}: expected SimGrid 3.32's one declaration of activities_, found "
                                f"{len(found)}: this SimGrid needs another edit (3.34 and later need none)")
    text = DECLARATION.sub(r"\1ActivityList<activity::ActivityImplPtr> activities_; // collrepro: removal without a walk", text)
    text = text.replace('#include "Simcall.hpp"\n', '#include "ActivityList.hpp"\n#include "Simcall.hpp"\n', 1)
    shutil.copyfile(HEADER, os.path.join(os.path.dirname(target), "ActivityList.hpp"))
    safeio.write_text(target, text)


def _say(message):
    print(f"[sim simgrid] {message}", file=sys.stderr, flush=True)


def _run(cmd, log, what, env, cwd):
    started = time.monotonic()
    _say(f"{what} ... (log {log})")
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"\n$ {' '.join(cmd)}\n")
        f.flush()
        rc = subprocess.run(cmd, env=env, cwd=cwd, stdout=f, stderr=subprocess.STDOUT).returncode
    if rc != 0:
        raise SimGridBuildError(f"SimGrid build: {what} failed (exit {rc}); see {log}")
    _say(f"{what}: done in {time.monotonic() - started:.0f} s")


def build(jobs=2, suite=None):
    """Fetch, edit, configure, build and install; returns the prefix (reused when complete)."""
    suite = suite or debian.machine_codename()
    version = debian.source_version("simgrid", suite)
    if not version.startswith("3.32"):
        raise SimGridBuildError(f"suite '{suite}' has SimGrid {version}, not 3.32: its removal does not "
                                "walk (3.34 and later), install it as it is")
    prefix = prefix_for(version)
    if installed(version):
        return prefix
    os.makedirs(root(), exist_ok=True)
    lock = os.open(os.path.join(root(), ".build.lock"), os.O_CREAT | os.O_RDWR, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(lock)
        raise SimGridBuildError(f"another SimGrid build is running (lock {root()}/.build.lock): wait for it")
    try:
        return installed(version) or _build_locked(version, suite, prefix, jobs)
    finally:
        os.close(lock)


def _build_locked(version, suite, prefix, jobs):
    log = os.path.join(root(), f"build-{version}.log")
    safeio.write_text(log, "")
    shutil.rmtree(prefix, ignore_errors=True)  # an unstamped prefix: an interrupted build
    work = os.path.join(root(), f".work-{version}")
    shutil.rmtree(work, ignore_errors=True)
    _say(f"fetching Debian's simgrid {version} ({suite})")
    tree = shutil.copytree(debian.fetch("simgrid", suite, log=log), os.path.join(work, "src"), symlinks=True)
    apply_edit(tree)
    launcher = ["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] \
        if shutil.which("ccache") else []
    env = dict(os.environ, CCACHE_BASEDIR=work, CCACHE_NOHASHDIR="1")  # hits across work directories
    bdir = os.path.join(work, "build")
    _run(["cmake", "-S", tree, "-B", bdir, f"-DCMAKE_INSTALL_PREFIX={prefix}", *CMAKE_OPTIONS, *launcher],
         log, "configure", env, work)  # its checks leave programs (test_stackgrowth) in cwd
    _run(["cmake", "--build", bdir, f"-j{jobs}"], log, "compile (the longest step)", env, work)
    _run(["cmake", "--install", bdir], log, "install", env, work)
    safeio.write_json(os.path.join(prefix, "collrepro-build.json"),
                      {"package": "simgrid", "version": version, "suite": suite, "edit": EDIT,
                       "header": "bench/sim/simgrid/ActivityList.hpp", "cmake_options": CMAKE_OPTIONS})
    open(os.path.join(prefix, STAMP), "w").close()
    shutil.rmtree(work, ignore_errors=True)
    return prefix


def main(argv=None):
    """collrepro-py sim simgrid build|prefix. Raises UserError (exit 2) or SimGridBuildError
    (exit 5): run it through safeio.run_cli."""
    ap = ArgumentParser(prog="sim simgrid", description=__doc__.split("\n\n")[0])
    ap.add_argument("action", choices=["build", "prefix"],
                    help="build: fetch, edit and build it (reused when complete); prefix: print where it is")
    ap.add_argument("--jobs", type=int, default=2, help="compilers at once (default 2)")
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)
    if args.action == "prefix":
        prefix = installed()
        if prefix is None:
            raise SimGridBuildError("no fast SimGrid built: run `./collrepro-py sim simgrid build` (12 min on 2 cores)")
        print(prefix)
        return 0
    print(build(jobs=args.jobs))
    return 0
