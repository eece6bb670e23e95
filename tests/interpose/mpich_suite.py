"""MPICH's own collective tests through the interposition library.

At test time (never committed): fetch Debian's `mpich` source package of this machine's suite
with collrepro.installations.debian, build seven programs of test/mpi/coll with MPICH's `mtest`
utility against the MPI library of this build, and run each at its `testlist` process counts
with the library preloaded, once per algorithm of its collective forced (COLLREPRO_PMPI_FORCE).
A run passes when it prints "No Errors", exits 0 and the library's report shows the forced
algorithm served calls. MPI_Neighbor_allgatherv and MPI_Neighbor_alltoallv are not intercepted:
their tests run once, preloaded, and must be served natively.

mtest's configure-generated header is replaced by our own few lines (MTEST_CONFIG below): POSIX
headers, no threads, no GPU. The built programs are cached outside the clone under
<cache>/mpich-coll-tests/<mpi flavor>-<MPI library id>-<source version>-<recipe>/ and rebuilt only
when the MPI library, the source or this recipe changes. Open MPI runs every testlist count; MPICH, which
busy-polls when oversubscribed, the counts up to MPICH_MAX_NP (5).
"""

import hashlib
import os
import re
import shutil
import subprocess
import tempfile

from check_library import Failure, env, mpirun, read_report, servable_algorithms, work_dir

from collrepro.installations import debian as debian_source

# test program -> the collective the library serves in it (None: passed through)
PROGRAMS = {
    "icallgather": "allgather",
    "icallgatherv": "allgatherv",
    "neighb_allgather": "neighbor-allgather",
    "neighb_alltoall": "neighbor-alltoall",
    "neighb_alltoallw": "neighbor-alltoallw",
    "neighb_allgatherv": None,
    "neighb_alltoallv": None,
}
MTEST_SOURCES = ("mtest.c", "mtest_common.c", "mtest_single.c")
MTEST_CONFIG = """\
/* mpitestconf.h for collrepro's build of MPICH's coll tests (tests/interpose/mpich_suite.py) */
#define HAVE_STDARG_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_MPI_WIN_CREATE 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
"""
# The neighbourhood tests guard their body with `defined(MPICH)` (they predate MPI-3's
# neighbourhood collectives elsewhere); the macro they set there turns them on for every library.
CFLAGS = ["-O1", "-w", "-DTEST_NEIGHB_COLL=1"]
MPICH_MAX_NP = 5


def c_compiler():
    """The C wrapper beside this build's C++ wrapper (mpicxx.openmpi -> mpicc.openmpi)."""
    cxx = env("MPICC")
    cc = os.path.join(os.path.dirname(cxx), os.path.basename(cxx).replace("mpicxx", "mpicc").replace("mpic++", "mpicc"))
    if not os.path.exists(cc):
        raise Failure(f"no C compiler wrapper beside {cxx} (expected {cc})")
    return cc


def mpi_library_id():
    """Which MPI library the tests link: the resolved libmpi path, size and time."""
    out = subprocess.run(["ldd", env("TRANSPARENCY")], capture_output=True, text=True, check=True).stdout
    lib = re.search(r"lib(?:mpi|mpich)\.so\S* => (\S+)", out)
    if not lib:
        raise Failure("cannot find libmpi in ldd of the test program")
    real = os.path.realpath(lib.group(1))
    st = os.stat(real)
    return hashlib.sha1(f"{real}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:12]


def testlist_counts(tree):
    """{program: [process counts]} from coll/testlist.in, for our programs."""
    counts = {}
    with open(os.path.join(tree, "test", "mpi", "coll", "testlist.in"), encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 2 and fields[0] in PROGRAMS and fields[1].isdigit():
                counts.setdefault(fields[0], []).append(int(fields[1]))
    missing = set(PROGRAMS) - set(counts)
    if missing:
        raise Failure(f"coll/testlist.in lists no process count for {sorted(missing)}")
    return counts


def build(tree, version):
    """The directory of the built programs (cached; built atomically)."""
    recipe = hashlib.sha1((MTEST_CONFIG + " ".join(CFLAGS)).encode()).hexdigest()[:8]
    key = f"{env('MPI_FLAVOR')}-{mpi_library_id()}-{version}-{recipe}"
    root = os.path.join(debian_source.cache_root(), "mpich-coll-tests")
    dest = os.path.join(root, key)
    if os.path.exists(os.path.join(dest, ".complete")):
        return dest
    os.makedirs(root, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".build-", dir=root)
    try:
        test = os.path.join(tree, "test", "mpi")
        with open(os.path.join(work, "mpitestconf.h"), "w", encoding="utf-8") as f:
            f.write(MTEST_CONFIG)
        cc = [c_compiler(), *CFLAGS, "-I", work, "-I", os.path.join(test, "include")]
        objects = []
        for src in MTEST_SOURCES:
            obj = os.path.join(work, src.replace(".c", ".o"))
            compile_step(cc + ["-c", os.path.join(test, "util", src), "-o", obj])
            objects.append(obj)
        for program in PROGRAMS:
            compile_step(cc + [os.path.join(test, "coll", program + ".c"), *objects, "-o", os.path.join(work, program)])
        debian_source.publish(work, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return dest


def compile_step(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise Failure(f"building MPICH's tests failed: {' '.join(cmd)}\n{p.stderr[-3000:]}")


def run_one(binary, np, collective, forced, report):
    if os.path.exists(report):
        os.remove(report)
    variables = {"COLLREPRO_PMPI_REPORT": report}
    if forced:
        variables["COLLREPRO_PMPI_FORCE"] = forced
    rc, out, err = mpirun(np, [binary], variables)
    name = f"{os.path.basename(binary)} np {np}" + (f" forced {forced}" if forced else "")
    if rc != 0 or "No Errors" not in out:
        raise Failure(f"{name}: exit {rc}\n{out[-2000:]}\n{err[-2000:]}")
    served = read_report(report)
    if forced and not served.get((collective, forced)):
        raise Failure(f"{name}: passed, but the report shows no {collective} call served by {forced}: {served}")
    if not forced and any(a != "native" for (_, a) in served):
        raise Failure(f"{name}: expected only native calls, report {served}")
    calls = served.get((collective, forced), 0) if forced else 0
    print(f"PASS {name}" + (f": {calls} {collective} process-calls served by {forced}" if forced else ""))


def main():
    try:
        tree = debian_source.fetch("mpich", debian_source.machine_codename())
    except debian_source.SourceError as e:
        raise Failure(f"cannot fetch Debian's mpich source (needed once, then cached): {e}")
    version = os.path.basename(os.path.dirname(tree))
    programs = build(tree, version)
    counts = testlist_counts(tree)
    by_collective = {}
    for name, collectives in servable_algorithms().items():
        for c in collectives:
            by_collective.setdefault(c, []).append(name)
    report = os.path.join(work_dir("mpich_suite"), "report.txt")
    passed = 0
    for program, collective in PROGRAMS.items():
        nps = counts[program]
        if env("MPI_FLAVOR") == "mpich":
            nps = [n for n in nps if n <= MPICH_MAX_NP]
        for np in nps:
            for forced in sorted(by_collective[collective]) if collective else [None]:
                run_one(os.path.join(programs, program), np, collective, forced, report)
                passed += 1
    print(f"MPICH {version} coll tests through the library on {env('MPI_FLAVOR')}: {passed} runs passed")
