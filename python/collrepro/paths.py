"""Where things are: the repository (a checkout) or an installed tree, and the defaults that
follow from it (collbench, the output root).

In an installed tree (cmake --install) REPO is PREFIX/share/collrepro, which holds the same
folders (python/, configs/, contract/, slurm/, docs/) and the install record.
"""

import os

from collrepro import safeio
from collrepro.safeio import EnvironmentProblem

# python/collrepro/paths.py -> the repository (or PREFIX/share/collrepro), two folders up.
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

