"""One MPI installation: what the tools need to build against it and launch with it."""

import os
import re
from dataclasses import asdict, dataclass, field

MULTIARCH_LIB = "/usr/lib/x86_64-linux-gnu"

# How Debian installs its two MPI libraries: (kind, version tool, C and C++ wrappers, launcher,
# prefix holding include/ and lib/).
DEBIAN = {
    "openmpi": ("/usr/bin/ompi_info", "/usr/bin/mpicc.openmpi", "/usr/bin/mpicxx.openmpi",
                "/usr/bin/mpirun.openmpi", os.path.join(MULTIARCH_LIB, "openmpi")),
    "mpich": ("/usr/bin/mpichversion", "/usr/bin/mpicc.mpich", "/usr/bin/mpicxx.mpich",
              "/usr/bin/mpiexec.mpich", os.path.join(MULTIARCH_LIB, "mpich")),
}

NAME_RE = re.compile(r"[a-z][a-z0-9]*-[0-9][A-Za-z0-9._+-]*")


@dataclass
class Installation:
    """name      e.g. openmpi-5.0.7: <kind>-<version>, also the build directory build/<name>
    kind      openmpi or mpich
    version   the library's version, as its own tools report it
    prefix    the installation prefix (what -DMPI_HOME would be)
    mpicc, mpicxx, launcher   absolute paths of the C and C++ wrappers and of mpirun/mpiexec
    env       variables a launch with it needs (PATH and LD_LIBRARY_PATH of a non-system prefix)
    origin    debian (packaged, known out of the box), built (by `build`), added (by `add`),
              derived (by `derive`: another installation plus an environment, derived.py)
    configure the configure options the library reports ('' when it reports none)
    base      derived only: the installation it is derived from ('' otherwise)
    delay     derived only: its COLLREPRO_PMPI_DELAY rules ('' for none: an A/A copy)
    """

    name: str
    kind: str
    version: str
    prefix: str
    mpicc: str
    mpicxx: str
    launcher: str
    env: dict = field(default_factory=dict)
    origin: str = "added"
    configure: str = ""
    base: str = ""
    delay: str = ""

    def to_json(self):
        return asdict(self)

    @classmethod
    def from_json(cls, data):
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)

    def environment(self, base=None):
        """A copy of `base` (default os.environ) with this installation's variables; PATH-like
        ones are prepended to what `base` has."""
        env = dict(os.environ if base is None else base)
        for key, value in self.env.items():
            if key in ("PATH", "LD_LIBRARY_PATH") and env.get(key):
                env[key] = value + os.pathsep + env[key]
            else:
                env[key] = value
        return env


def prefix_layout(kind, prefix):
    """The wrappers, launcher and environment of an ordinary `make install` prefix."""
    bindir = os.path.join(prefix, "bin")
    launcher = os.path.join(bindir, "mpirun" if kind == "openmpi" else "mpiexec")
    env = {"PATH": bindir}
    libdir = os.path.join(prefix, "lib")
    if os.path.isdir(libdir):
        env["LD_LIBRARY_PATH"] = libdir
    return dict(mpicc=os.path.join(bindir, "mpicc"), mpicxx=os.path.join(bindir, "mpicxx"),
                launcher=launcher, env=env)
