"""Asking an MPI installation what it is: its kind and version (from its own tools, no
compilation), and its identity string (MPI_Get_library_version, from a tiny program compiled
with the installation's wrapper and started with its launcher on 2 processes).

The probe program doubles as the smoke test of a source build: it also checks that an
MPI_Allreduce over all ranks gives the right sum, so a library that starts but cannot
communicate fails it.
"""

import os
import re
import shutil
import subprocess
import tempfile

from ..safeio import EnvironmentProblem

PROBE_C = r"""
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, sum = 0, len = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  MPI_Get_library_version(version, &len);
  if (rank == 0) printf("collrepro-probe size=%d sum=%d\n%s\n", size, sum, version);
  MPI_Finalize();
  return sum == size * (size - 1) / 2 ? 0 : 1;
}
"""

PROBE_TIMEOUT_S = 300


class ProbeError(EnvironmentProblem, RuntimeError):
    """One line: what is wrong with the installation, and what to do."""


QUERY_TIMEOUT_S = 300  # generous: a loaded machine and a cold page cache make the first call slow


def _output(cmd, env=None, timeout=QUERY_TIMEOUT_S):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, f"{cmd[0]} timed out after {timeout} s"
    except OSError as e:
        return 127, str(e)
    return r.returncode, r.stdout


TOOLS = {"openmpi": "ompi_info", "mpich": "mpichversion"}


# What each kind's tool answers: (arguments, pattern of the answer) for the version and for the
# configure options.
_QUERIES = {
    ("openmpi", "version"): (["--parsable"], re.compile(r"^ompi:version:full:(\S+)", re.M)),
    ("mpich", "version"): (["-v"], re.compile(r"MPICH Version:\s*(\S+)")),
    ("openmpi", "configure"): (["--parsable"], re.compile(r"^config:cli:(.*)$", re.M)),
    ("mpich", "configure"): (["-c"], re.compile(r"(?:MPICH configure:)?\s*(.*\S)", re.I | re.S)),
}


def _ask(kind, tool, what):
    """(exit code, the answer or None, the output) of `tool` for `what` (version, configure)."""
    args, pattern = _QUERIES[(kind, what)]
    rc, out = _output([tool] + args)
    m = pattern.search(out)
    return rc, (m.group(1).strip() if rc == 0 and m else None), out


def tool_version(kind, tool):
    """The version `tool` (ompi_info or mpichversion) reports; raises ProbeError."""
    rc, version, out = _ask(kind, tool, "version")
    if version is None:
        raise ProbeError(f"{tool} does not report a version (exit {rc}: {_last_line(out)}): "
                         "is the installation complete?")
    return version


def kind_and_version(bindir):
    """(kind, version) of the installation whose programs are in `bindir`, from ompi_info or
    mpichversion; raises ProbeError naming what is missing."""
    for kind, name in TOOLS.items():
        tool = os.path.join(bindir, name)
        if os.access(tool, os.X_OK):
            return kind, tool_version(kind, tool)
    raise ProbeError(f"{bindir} has neither ompi_info (Open MPI) nor mpichversion (MPICH): "
                     "give the prefix of an MPI installation (the directory holding bin/)")


def configure_options(kind, tool):
    """The configure options the library reports through `tool`, or '' when it reports none."""
    return _ask(kind, tool, "configure")[1] or ""


def run_probe(compile_cmd, launch_cmd, env, timeout=PROBE_TIMEOUT_S):
    """Compile PROBE_C with compile_cmd (a list; the source and -o are appended) and run it with
    launch_cmd + [binary]. Returns the library version string; raises ProbeError."""
    with tempfile.TemporaryDirectory(prefix="collrepro-probe-") as tmp:
        src, exe = os.path.join(tmp, "probe.c"), os.path.join(tmp, "probe")
        with open(src, "w", encoding="utf-8") as f:
            f.write(PROBE_C)
        rc, out = _output(list(compile_cmd) + [src, "-o", exe], env=env)
        if rc != 0:
            raise ProbeError(f"compiling the probe with {compile_cmd[0]} failed: {_last_line(out)}")
        rc, out = _output(list(launch_cmd) + [exe], env=env, timeout=timeout)
        m = re.search(r"collrepro-probe size=(\d+) sum=(\d+)\n(.*)", out, re.S)
        if rc != 0 or not m:
            raise ProbeError(f"the probe failed under {launch_cmd[0]} (exit {rc}): {_last_line(out)}")
        return m.group(3).strip()


def _last_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else "(no output)"


def which(program):
    return shutil.which(program)
