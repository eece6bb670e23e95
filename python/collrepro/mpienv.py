"""The MPI environment of the project, written here and nowhere else.

- the launcher program of each MPI (Open MPI's mpirun.openmpi, MPICH's mpiexec.mpich, SimGrid's
  smpirun) and Slurm's PMI plugin for each;
- the environment these launches need on our machines: Open MPI run as root, idle ranks that
  yield the CPU when a node is oversubscribed (Open MPI's mpi_yield_when_idle, MPICH's
  MPIR_CVAR_POLLS_BEFORE_YIELD, which Debian's MPICH 4.0.2, a ch4:ucx build, ignores: it never
  yields, so the MPICH build's tests and the fuzzer preload fuzz/mpich_yield.c), and the topo/treematch workaround;
- the environment of the tests and of ./collrepro (ci_environment): the same, unconditionally,
  plus Open MPI's shared-memory single-copy mechanism off (btl_vader_single_copy_mechanism=none:
  containers lack cross-memory attach; it changes the timing of large messages, so a launch does
  not set it) and oversubscription for programs the tests start by hand. The CMake builds take it
  from a generated file (`--cmake`), the shell scripts from `--env` (below).

Tables and pure functions only: it starts nothing (launch/ starts programs with it).

`collrepro-py env [--launch MPI --np N]` prints shell `export` lines: by default ci_environment,
with --launch what a launch of N processes of MPI adds here.
`collrepro-py env --cmake FILE --mpi FLAVOR` writes the CMake file the tests include.
"""

import os
import re
import sys

from collrepro import safeio
from collrepro.cliargs import ArgumentParser
from collrepro.safeio import UserError

MPIS = ("openmpi", "mpich")
PROGRAMS = {"openmpi": "mpirun.openmpi", "mpich": "mpiexec.mpich", "smpi": "smpirun"}
SRUN_MPI = {"openmpi": "pmix", "mpich": "pmi2"}


def installed_program(mpi):
    """The launcher of `mpi` as Debian installs it (an absolute path)."""
    return os.path.join("/usr/bin", PROGRAMS[mpi])


# ------------------------------------------------------------------ environment
# Every MPI setting of the project is written here and nowhere else. A launch adds what it needs
# (mpi_environment); the tests, the CMake builds (a file generated at configure time) and the
# shell scripts take the whole set from `collrepro-py env` or `env --cmake FILE`.

# Open MPI refuses to start as root without both.
RUN_AS_ROOT = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
# More processes than cores: idle ranks yield the CPU instead of spinning. Debian's MPICH 4.0.2
# (ch4:ucx) ignores its setting: 5 ranks on 2 cores, 2000 MPI_Allgather of 1 KiB took 34.1 s at
# 1000 (its default), 33.6 s at 1 and 33.4 s at 0; it is kept for MPICH builds that read it.
YIELD_WHEN_IDLE = {"openmpi": {"OMPI_MCA_mpi_yield_when_idle": "1"},
                   "mpich": {"MPIR_CVAR_POLLS_BEFORE_YIELD": "10"}}
# Open MPI 4.1's topo/treematch hangs now and then in repeated MPI_Dist_graph_create calls
# (open-mpi/ompi#8991), which the isomorphic remapped baseline and setup timing make.
NO_TREEMATCH = {"OMPI_MCA_topo": "^treematch"}
# Values a caller (or the user) set are kept, even empty ones.
CALLER_FIRST = ("OMPI_MCA_topo", "MPIR_CVAR_POLLS_BEFORE_YIELD")
# The tests and ./collrepro on a small machine, in containers: more processes than slots for
# programs started by hand too, and shared-memory copies without cross-memory attach.
TEST_ONLY = {"OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_btl_vader_single_copy_mechanism": "none"}
# The launcher flags that allow more processes than slots.
OVERSUBSCRIBE_FLAGS = {"openmpi": ["--oversubscribe"]}
TEST_LAUNCH_FLAGS = {"openmpi": OVERSUBSCRIBE_FLAGS["openmpi"] + ["--mca", "rmaps_base_oversubscribe", "1"]}


def _openmpi_settings(env, oversubscribed):
    if os.geteuid() == 0:
        env.update(RUN_AS_ROOT)
    if oversubscribed:
        env.update(YIELD_WHEN_IDLE["openmpi"])
    for k, v in NO_TREEMATCH.items():
        env.setdefault(k, v)


def _mpich_settings(env, oversubscribed):
    if oversubscribed:
        for k, v in YIELD_WHEN_IDLE["mpich"].items():
            env.setdefault(k, v)


def ci_environment():
    """The settings of every test and of ./collrepro, for both libraries (each ignores the other's):
    run as root, oversubscribed with yielding ranks, no treematch, no single-copy mechanism."""
    env = dict(RUN_AS_ROOT)
    for settings in YIELD_WHEN_IDLE.values():
        env.update(settings)
    env.update(NO_TREEMATCH)
    env.update(TEST_ONLY)
    return env


def mpi_environment(mpi, oversubscribed=False, base=None):
    """A copy of `base` (default: this process's environment) with what a launch of `mpi` needs.

    `oversubscribed` says that more processes than cores will run, so idle ranks should yield.
    """
    env = dict(os.environ if base is None else base)
    if mpi == "openmpi":
        _openmpi_settings(env, oversubscribed)
    elif mpi == "mpich":
        _mpich_settings(env, oversubscribed)
    return env



def _shell_value(key, value):
    if not re.fullmatch(r"[\w^.,:/=+-]*", value):
        raise ValueError(f"{key}={value!r} needs shell quoting")  # a bug in the tables above
    return f'"${{{key}-{value}}}"' if key in CALLER_FIRST else value


def shell_exports(env):
    """`export K=V` lines for a shell to eval; values a caller set first are kept (CALLER_FIRST)."""
    return "".join(f"export {k}={_shell_value(k, v)}\n" for k, v in sorted(env.items()))


def _cmake_list(words):
    return ";".join(w.replace(";", "\\;") for w in words)


def cmake_settings(flavor):
    """The CMake file the tests include (cmake/MpiLaunch.cmake writes it at configure time)."""
    return ("# Generated by `collrepro-py env --cmake` (python/collrepro/mpienv.py); do not edit.\n"
            "# The environment of every MPI test (a list of NAME=VALUE for the ENVIRONMENT property):\n"
            f'set(COLLREPRO_MPI_TEST_ENV "{_cmake_list(f"{k}={v}" for k, v in sorted(ci_environment().items()))}")\n'
            f"# The launcher flags of every MPI test of this build ({flavor}), before COLLREPRO_MPIEXEC_EXTRA:\n"
            f'set(COLLREPRO_MPI_LAUNCH_FLAGS "{_cmake_list(TEST_LAUNCH_FLAGS.get(flavor, []))}")\n')


def main(argv):
    """collrepro-py env: the environment as shell `export` lines (default), or the tests' CMake file."""
    ap = ArgumentParser(prog="env", description="the MPI launch environment, for shell scripts and CMake "
                        "(mpienv.py): by default `export` lines of the tests' environment (ci_environment)")
    ap.add_argument("--launch", choices=MPIS, help="instead: what a launch of this library adds here")
    ap.add_argument("--np", type=int, default=1, help="with --launch: its process count (default 1)")
    ap.add_argument("--cmake", metavar="FILE", help="instead: write the CMake settings of the tests to FILE")
    ap.add_argument("--mpi", default="", help="with --cmake: the build's library (openmpi, mpich, smpi, ...)")
    args = ap.parse_args(argv)
    if args.cmake and args.launch:
        raise UserError("give --cmake FILE or --launch MPI, not both (see collrepro-py env --help)")
    if args.cmake:
        safeio.write_text(args.cmake, cmake_settings(args.mpi))
        return 0
    env = (ci_environment() if args.launch is None else
           mpi_environment(args.launch, oversubscribed=args.np > len(os.sched_getaffinity(0)), base={}))
    sys.stdout.write(shell_exports(env))
    return 0
