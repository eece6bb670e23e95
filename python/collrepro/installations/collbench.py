"""collbench built against one installation: `build/<name>/`, configured with that
installation's wrappers and launcher (CMake's FindMPI asks the wrapper for its flags), without
the tests and micro benchmarks. The Debian libraries also count as built when their preset
build (`build/openmpi`, `build/mpich`) has collbench.

`linked_library(exe)` reads which libmpi the dynamic loader picks for a binary (ldd), so a
build for a source-built MPI is never silently running against the Debian one of the same kind.
"""

import os
import re
import subprocess

from ..safeio import EnvironmentProblem
from .model import DEBIAN, Installation

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


class CollbenchError(EnvironmentProblem, RuntimeError):
    """One line: what failed and where its output is."""


def build_dir(inst: Installation, repo=REPO):
    return os.path.join(repo, "build", inst.name)


def executable(inst: Installation, repo=REPO):
    """collbench of `inst` in this clone, or None when it is not built (a derived installation
    runs its base's; one built with a Debian library's wrapper, that library's preset build)."""
    inst = getattr(inst, "base_installation", None) or inst
    candidates = [build_dir(inst, repo)]
    if inst.origin == "debian" or _debian_wrapper(inst):
        candidates.append(os.path.join(repo, "build", inst.kind))  # the CMake preset's build
    for d in candidates:
        exe = os.path.join(d, "bench", "collbench")
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            return exe
    return None


def _debian_wrapper(inst: Installation):
    """An added installation built with a Debian library's own C++ wrapper (e.g. that library with
    a slowdown library preloaded, installations/slowlib.py): collbench built for it is the preset's."""
    return any(inst.kind == kind and inst.mpicxx == wrappers[2] for kind, wrappers in DEBIAN.items())


def cmake_configure_command(inst: Installation, repo=REPO):
    return ["cmake", "-S", repo, "-B", build_dir(inst, repo), "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
            f"-DMPI_C_COMPILER={inst.mpicc}", f"-DMPI_CXX_COMPILER={inst.mpicxx}",
            f"-DMPIEXEC_EXECUTABLE={inst.launcher}", f"-DCOLLREPRO_MPI_FLAVOR={inst.kind}",
            "-DCOLLREPRO_TESTS=OFF", "-DCOLLREPRO_MICRO=OFF"]


def build(inst: Installation, env, repo=REPO, jobs=2, pmpi=False):
    """Configure and build collbench for `inst` (with pmpi, the PMPI library too:
    build/<name>/interpose/libcollrepro_pmpi.so); returns collbench's path. Output goes to
    build/<name>/collmpi-build.log."""
    if not os.access(inst.mpicxx, os.X_OK):
        raise CollbenchError(f"{inst.name}: {inst.mpicxx} is missing: collbench needs the installation's C++ wrapper")
    os.makedirs(build_dir(inst, repo), exist_ok=True)
    log = os.path.join(build_dir(inst, repo), "collmpi-build.log")
    with open(log, "w", encoding="utf-8") as f:
        for cmd in (cmake_configure_command(inst, repo),
                    ["cmake", "--build", build_dir(inst, repo), "--target", "collbench"]
                    + (["collrepro_pmpi"] if pmpi else []) + [f"-j{jobs}"]):
            f.write("$ " + " ".join(cmd) + "\n")
            f.flush()
            if subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env).returncode != 0:
                raise CollbenchError(f"{inst.name}: `{' '.join(cmd[:3])} ...` failed; see {log}")
    exe = os.path.join(build_dir(inst, repo), "bench", "collbench")
    check_linked(inst, exe, env)
    return exe


def linked_library(exe, env=None):
    """The file the dynamic loader resolves libmpi to for `exe` (ldd), or '' when none."""
    out = subprocess.run(["ldd", exe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=env).stdout
    m = re.search(r"^\s*libmpi(?:ch)?\.so[.\d]*\s*=>\s*(\S+)", out, re.M)
    return os.path.realpath(m.group(1)) if m else ""


def check_linked(inst: Installation, exe, env=None):
    """Raise CollbenchError unless `exe` loads the libmpi of `inst`."""
    lib = linked_library(exe, env)
    if inst.origin == "debian":
        ok = bool(lib)
    else:
        ok = lib.startswith(os.path.realpath(inst.prefix) + os.sep)
    if not ok:
        raise CollbenchError(f"{exe} loads {lib or 'no libmpi'}, not the library of {inst.name} in {inst.prefix}: "
                             f"delete {os.path.dirname(os.path.dirname(exe))} and build again")
