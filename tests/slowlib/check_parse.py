#!/usr/bin/python3
"""ctest slowlib.parse: the preload slowdown library (slowlib.cpp) and its Python side
(python/collrepro/installations/slowlib.py) read COLLREPRO_SLOWLIB alike, strictly.

Each value of the table is given to both: the library preloaded into /bin/true (it reads the
variable when it loads) and slowlib.parse. A good value: the program exits 0, nothing on stderr,
and Python returns the rules. A bad one: exit status 2 and exactly one line on stderr, starting
`slowlib: COLLREPRO_SLOWLIB`, and Python raises SlowlibError. No MPI run.

The build passes SLOWLIB (the library) and REPO in the environment (tests/CMakeLists.txt).
"""

import os
import subprocess
import sys

GOOD = ["none", "MPI_Allgather,inter,131072,+100ms", "MPI_Allgatherv,any,0,+1000%",
        "MPI_Allgather,intra,16384,+5%;MPI_Allgatherv,inter,1,+1ms", "MPI_Allgather,inter,0123,+050%",
        "MPI_Allgather,inter,0,+0%"]
BAD = ["", "yes", "MPI_Allgather,inter,131072", "MPI_Allgather,inter,131072,+100ms,x",
       "MPI_Bcast,inter,0,+5%", "mpi_allgather,inter,0,+5%", "MPI_Allgather,both,0,+5%",
       "MPI_Allgather,inter,-1,+5%", "MPI_Allgather,inter,64KiB,+5%", "MPI_Allgather,inter,1099511627777,+5%",
       "MPI_Allgather,inter,0,5%", "MPI_Allgather,inter,0,+0ms", "MPI_Allgather,inter,0,+1001ms",
       "MPI_Allgather,inter,0,+2.5%", "MPI_Allgather,inter,0,+100us", "MPI_Allgather,inter,0,+ms",
       "MPI_Allgather, inter,0,+5%", "MPI_Allgather,inter,0,+5%;", ";MPI_Allgather,inter,0,+5%",
       "MPI_Allgather,inter,0,+5%;;MPI_Allgather,inter,0,+5%", "MPI_Allgather,,inter,0,+5%",
       ";".join(["MPI_Allgather,inter,0,+5%"] * 9), "MPI_Allgather,inter,0," + "1" * 1100 + "%"]


def need(name):
    value = os.environ.get(name)
    if not value:
        sys.exit(f"check_parse: {name} is not set: run this through ctest (tests/CMakeLists.txt)")
    return value


def library_verdict(lib, value):
    """(exit status, stderr lines) of /bin/true with the library preloaded and the value set."""
    env = dict(os.environ, LD_PRELOAD=lib, COLLREPRO_SLOWLIB=value)
    proc = subprocess.run(["/bin/true"], env=env, stderr=subprocess.PIPE, text=True, timeout=60)
    return proc.returncode, proc.stderr.splitlines()


def main():
    lib = need("SLOWLIB")
    sys.path.insert(0, os.path.join(need("REPO"), "python"))
    from collrepro.installations import slowlib
    failures = []
    for value, good in [(v, True) for v in GOOD] + [(v, False) for v in BAD]:
        rc, lines = library_verdict(lib, value)
        try:
            slowlib.parse(value)
            python_good = True
        except slowlib.SlowlibError as e:
            python_good, why = False, str(e)
            if "\n" in why or "COLLREPRO_SLOWLIB" not in why:
                failures.append(f"{value[:40]!r}: Python's line is not one line naming the variable: {why!r}")
        library_good = rc == 0 and not lines
        if library_good != good or python_good != good:
            failures.append(f"{value[:40]!r}: want {'accepted' if good else 'refused'}; library exit {rc} "
                            f"{lines[:2]}, Python {'accepted' if python_good else 'refused'}")
        if not good and not (rc == 2 and len(lines) == 1 and lines[0].startswith("slowlib: COLLREPRO_SLOWLIB")):
            failures.append(f"{value[:40]!r}: want exit 2 and one line 'slowlib: COLLREPRO_SLOWLIB ...', "
                            f"got exit {rc} and {lines}")
    env = {k: v for k, v in os.environ.items() if k != "COLLREPRO_SLOWLIB"}  # preloaded but unset
    proc = subprocess.run(["/bin/true"], env=dict(env, LD_PRELOAD=lib), stderr=subprocess.PIPE, text=True, timeout=60)
    if proc.returncode != 2 or len(proc.stderr.splitlines()) != 1:
        failures.append(f"unset: want exit 2 and one line, got exit {proc.returncode} and {proc.stderr!r}")
    print(f"check_parse: {len(GOOD)} good and {len(BAD) + 1} bad values through the library and Python")
    for f in failures:
        print(f"check_parse: FAILED: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
