"""What a source build of each MPI release needs: its Debian suite and a minimal configure line.

Pure data and functions (no processes run here), so the tests and the documentation can show
exactly what `build KIND@VERSION` will do.

The builds are cut down to what collbench uses, so that they finish quickly on 2 cores:
no Fortran, no C++ bindings (MPICH 3.4 keeps them: it installs its mpicxx wrapper only with
them), no MPI-IO (ROMIO), no OpenSHMEM or Java, no fabric back ends
(UCX, libfabric, verbs: one node, shared memory and TCP are enough), no static libraries, no
dependency tracking. Libraries Debian already packages are used from the system where the
release accepts them: hwloc (both) and libevent (Open MPI 5). Open MPI 5.0.7 builds its bundled
PMIx and PRRTE: its PRRTE needs PMIx 4.2.4 or later, and bookworm packages 4.2.2. MPICH 3.4 is built with the ch3
device and the dataloop datatype engine (ch4 would need libfabric or UCX).

Debian's upstream tarball of MPICH 3.4.1 leaves out what MPICH's autogen.sh generates for the
embedded modules (Debian's own build runs autogen.sh in full). The build therefore does the
two parts of it that a ch3 build needs first: it completes the subpackages' copies of shared
directories (`sync_dirs`: the autoconf macros, MPL and hwloc in hydra), as autogen.sh does,
and (`prepare_steps`) generates the
configure scripts of the two modules that configure always enters, json-c and yaksa (yaksa with
two levels of nested pack functions, the smallest set that compiles; fewer levels generate
calls to functions that are not generated), and the C file holding the collective-selection
tables. This needs autoconf, automake and libtool. The
test suite (test/mpi), whose generated files are missing too, is not configured
(`--no-recursion`).
"""

from dataclasses import dataclass

from ..safeio import UserError

KINDS = ("openmpi", "mpich")

# The Debian suite that packages each release buildable here (the source package's name
# is the kind).
SUITES = {
    ("openmpi", "5.0.7"): "trixie",
    ("mpich", "3.4.1"): "bullseye",
}

_COMMON = ["--disable-static", "--enable-shared", "--disable-dependency-tracking", "--enable-silent-rules"]

_OPENMPI = [
    "--disable-mpi-fortran", "--disable-oshmem", "--disable-mpi-java", "--disable-io-romio",
    "--with-hwloc=external", "--with-libevent=external", "--with-pmix=internal", "--with-prrte=internal",
    "--without-ucx", "--without-ofi", "--without-verbs", "--without-psm2", "--without-cuda",
    "--without-ucc", "--disable-sphinx",
]

_MPICH = [
    "--disable-fortran", "--disable-romio", "--disable-doc",  # C++ stays: 3.4 installs mpicxx only with it
    "--with-device=ch3:nemesis", "--with-pm=hydra", "--with-datatype-engine=dataloop",
    "--with-hwloc-prefix=/usr", "--enable-fast=O2", "--with-wrapper-dl-type=none",
    "--no-recursion",  # autoconf's own: skips the test suite's configure (test/mpi, not built)
]


# (directory, command, the file it creates) run in the unpacked source before configure, when
# that file is missing.
_MPICH_PREPARE = [
    ("modules/json-c", ["autoreconf", "-fi"], "configure"),
    ("modules/yaksa", ["./autogen.sh", "--pup-max-nesting=2"], "configure"),
    (".", ["./maint/tuning/coll/json_gen.sh"], "src/mpi/coll/src/csel_json_autogen.c"),
]


# (source, copy) directory pairs: MPICH keeps copies of some directories in its subpackages and
# autogen.sh fills them; Debian's tarball has the copies only in part. The build adds the files
# a copy lacks (never overwriting one), dated as old as the copy's files, so that make does not
# take the generated build system for stale and try to rerun automake. `*/confdb` stands for
# every confdb/ directory below the top one.
_MPICH_SYNC = [
    ("confdb", "*/confdb"),
    ("src/mpl", "src/pm/hydra/mpl"),
    ("modules/hwloc", "src/pm/hydra/tools/topo/hwloc/hwloc"),
]


class RecipeError(UserError, ValueError):
    """One line naming the bad input and the fix."""


@dataclass(frozen=True)
class Recipe:
    kind: str
    version: str
    suite: str

    @property
    def name(self):
        return f"{self.kind}-{self.version}"

    def configure_options(self, prefix):
        extra = _OPENMPI if self.kind == "openmpi" else _MPICH
        return [f"--prefix={prefix}"] + _COMMON + extra

    @property
    def sync_dirs(self):
        """(source, copy) directories whose copy gets the files it lacks before configure."""
        return list(_MPICH_SYNC) if self.kind == "mpich" else []

    @property
    def prepare_steps(self):
        return list(_MPICH_PREPARE) if self.kind == "mpich" else []


def parse_spec(spec):
    """'openmpi@5.0.7' -> Recipe; raises RecipeError with the fix."""
    kind, sep, version = spec.partition("@")
    if not sep or not version:
        raise RecipeError(f"build {spec}: write KIND@VERSION, e.g. openmpi@5.0.7 or mpich@3.4.1")
    if kind not in KINDS:
        raise RecipeError(f"build {spec}: kind '{kind}' is not one of {', '.join(KINDS)}")
    suite = SUITES.get((kind, version))
    if suite is None:
        known = ", ".join(f"{k}@{v}" for k, v in SUITES)
        raise RecipeError(f"build {spec}: no Debian suite known for this release (buildable: {known})")
    return Recipe(kind, version, suite)


def buildable():
    """Every release `build` knows, as Recipes."""
    return [Recipe(k, v, s) for (k, v), s in SUITES.items()]
