#!/usr/bin/python3
"""fuzz.<flavor>.catches: the differential fuzzer (collrepro-py fuzz) finds what it must.

1. Bad input gets one line on standard error and exit 2, and leaves no run directory: budgets
   of zero or below, an unknown library, form or algorithm.
2. A deliberately wrong algorithm (tests/fuzz/broken_algorithm.cpp, in a test-only variant of
   the PMPI library) is caught: exit 1, one finding called the project's fault, minimised (one
   call, no skew, a plain split, bytes, no more processes or bytes than drawn), its reproducer
   compiles with the library's mpicc and fails under the broken library but passes under the
   real one, and its regression case does the same under --replay.
3. On MPICH 4.0.2, its persistent intercommunicator Allgather (which sends the buffer as it
   was at the init) is reported as wrong data, marked as the known fault, and the run passes;
   and a blocking Allgather(v) of 723 structs (an int and a double with a hole), which MPICH
   4.0.2 truncates, comes back right with `native` forced under the PMPI library (it passes the
   call as bytes: capability inter_typed).

The build passes the paths in the environment (tests/interpose/CMakeLists.txt).
"""

import json
import os
import re
import subprocess
import sys
import tempfile

REPO = os.environ["REPO"]
FLAVOR = os.environ["MPI_FLAVOR"]
REAL = os.environ["PMPI_LIBRARY"]
BROKEN = os.environ["BROKEN_PMPI_LIBRARY"]
FUZZ = [os.path.join(REPO, "collrepro-py"), "fuzz"]
BROKEN_NAME = "test-broken-allgather"


class Failure(Exception):
    pass


def fuzz(*args):
    p = subprocess.run(FUZZ + list(args), capture_output=True, text=True, timeout=1200)
    return p.returncode, p.stdout, p.stderr


def check_bad_input(work):
    out = os.path.join(work, "bad")
    for args, field in ((["--cases", "0"], "--cases"), (["--minutes", "-1"], "--minutes"),
                        (["--minutes", "0"], "--minutes"), (["--installations", "nosuch-1.0"], "nosuch"),
                        (["--forms", "sometimes"], "sometimes"), (["--algorithms", "nosuch"], "nosuch"),
                        (["--timeout", "abc"], "--timeout")):
        code, _, err = fuzz("--installations", FLAVOR, "--out", out, *args)
        if code != 2 or len(err.strip().splitlines()) != 1 or field not in err:
            raise Failure(f"fuzz {' '.join(args)}: exit {code}, want 2 and one line naming {field}: {err!r}")
        if os.path.exists(out):
            raise Failure(f"fuzz {' '.join(args)}: bad input left {out} behind")
        print(f"bad input {' '.join(args)}: {err.strip()}")


def installation():
    sys.path.insert(0, os.path.join(REPO, "python"))
    from collrepro.installations import registry
    return registry.resolve(FLAVOR)


def run_repro(inst, exe, np, library, work, force=BROKEN_NAME, args=()):
    """Runs `exe` under the PMPI library `library` with `force` forced; (exit code, output)."""
    flag = (lambda k, v: ["-x", f"{k}={v}"]) if FLAVOR == "openmpi" else (lambda k, v: ["-genv", k, v])
    from collrepro.mpienv import OVERSUBSCRIBE_FLAGS
    argv = [inst.launcher, "-n", str(np)] + OVERSUBSCRIBE_FLAGS.get(FLAVOR, [])
    argv += flag("LD_PRELOAD", library) + flag("COLLREPRO_PMPI_FORCE", force) + [exe, *args]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=work)
    return p.returncode, p.stdout + p.stderr


def check_broken(work):
    out, regs = os.path.join(work, "broken"), os.path.join(work, "regressions")
    os.makedirs(regs)
    code, _, err = fuzz("--seed", "2", "--cases", "200", "--installations", FLAVOR, "--pmpi", BROKEN,
                        "--algorithms", f"{BROKEN_NAME}@allgather,native", "--forms", "blocking", "--timeout", "120",
                        "--out", out, "--regressions", regs)
    if code != 1:
        raise Failure(f"the broken algorithm's run: exit {code}, want 1 (a new finding):\n{err}")
    findings = sorted(os.listdir(os.path.join(out, "findings")))
    # The flip is a mismatch; once, under load with the idle-yield library preloaded, a launch of
    # the broken library also died mid-batch (a crash finding whose case passes alone as a
    # mismatch; cause not found). Every finding must be the broken algorithm's; the mismatch is
    # the one checked below.
    strays = [f for f in findings if f"-{BROKEN_NAME}-" not in f]
    mismatches = [f for f in findings if "-mismatch-" in f]
    if strays or len(mismatches) != 1:
        raise Failure(f"want one mismatch finding of {BROKEN_NAME} (and nothing else's), got {findings}")
    where = os.path.join(out, "findings", mismatches[0])
    with open(os.path.join(where, "finding.json"), encoding="utf-8") as f:
        finding = json.load(f)
    if finding["target"] != BROKEN_NAME or not finding["fault"].startswith("the project's") or finding["known"]:
        raise Failure(f"the finding is not the project's fault in {BROKEN_NAME}: {finding}")
    small, drawn = finding["case"], finding["drawn"]
    for word in ("calls=1", "skew=-1:0", "make=split", "stype=byte", "rtype=byte"):
        if word not in small.split():
            raise Failure(f"the minimised case lacks {word}: {small} (drawn: {drawn})")
    print(f"caught and minimised in {finding['minimise_launches']} launches: drawn {drawn}\n  -> np {finding['np']} {small}")
    regression = [os.path.join(regs, r) for r in os.listdir(regs) if r.startswith(mismatches[0])]
    if len(regression) != 1:
        raise Failure(f"want one regression case of {mismatches[0]} in {regs}, got {os.listdir(regs)}")

    inst = installation()
    exe = os.path.join(work, "repro")
    p = subprocess.run([inst.mpicc, "-o", exe, os.path.join(where, "repro.c")], capture_output=True, text=True)
    if p.returncode != 0:
        raise Failure(f"the reproducer does not compile with {inst.mpicc}:\n{p.stderr}")
    code, text = run_repro(inst, exe, finding["np"], BROKEN, work)
    if code != 1 or "MISMATCH" not in text:
        raise Failure(f"the reproducer under the broken library: exit {code}, want 1 and MISMATCH:\n{text}")
    code, text = run_repro(inst, exe, finding["np"], REAL, work)
    if code != 0 or "ok" not in text:
        raise Failure(f"the reproducer under the real library: exit {code}, want 0:\n{text}")
    print("the reproducer fails under the broken library and passes under the real one")
    for library, want in ((BROKEN, 1), (REAL, 0)):
        code, stdout, err = fuzz("--replay", regression[0], "--installations", FLAVOR, "--pmpi", library)
        if code != want:
            raise Failure(f"--replay under {os.path.basename(library)}: exit {code}, want {want}:\n{stdout}{err}")
    print("its regression case fails under the broken library and passes under the real one")


def check_known_fault(work):
    inst = installation()
    if not (FLAVOR == "mpich" and inst.version == "4.0.2"):
        print(f"{inst.name}: no known fault of its own persistent Allgather to find")
        return
    out = os.path.join(work, "known")
    code, _, err = fuzz("--seed", "3", "--cases", "40", "--installations", FLAVOR, "--algorithms", "native",
                        "--forms", "persistent", "--timeout", "120", "--out", out)
    with open(os.path.join(out, "summary.md"), encoding="utf-8") as f:
        summary = f.read()
    if code != 0 or not re.search(r"mismatch on mpich-4\.0\.2 through native .*known: MPICH 4\.0\.2", summary):
        raise Failure(f"MPICH 4.0.2's persistent Allgather: exit {code}, want 0 and a known mismatch:\n{err}\n{summary}")
    print("MPICH 4.0.2's persistent intercommunicator Allgather: reported as wrong data, the known fault")
    # Its typed intercommunicator Allgather fails beyond 8 KiB of a struct type: a blocking call
    # the library leaves to MPICH (native forced) must reach it as bytes, and come back right.
    case = ("coll=allgather form=blocking calls=2 make=split layout=block p=1 counts=0/723 disp=contig "
            "stype=struct rtype=struct skew=-1:0 seed=5")
    exe = os.path.join(work, "intercase")
    p = subprocess.run([inst.mpicc, "-o", exe, os.path.join(REPO, "fuzz", "intercase.c")], capture_output=True, text=True)
    if p.returncode != 0:
        raise Failure(f"fuzz/intercase.c does not compile with {inst.mpicc}:\n{p.stderr}")
    for coll, line in (("allgather", case), ("allgatherv", case.replace("allgather", "allgatherv")
                                                              .replace("disp=contig", "disp=gap"))):
        code, text = run_repro(inst, exe, 2, REAL, work, force="native", args=[line])
        if code != 0 or "case 0 ok" not in text:
            raise Failure(f"a blocking {coll} of 723 structs, native forced under the library: exit {code}:\n{text}")
    print("its typed intercommunicator Allgather(v) beyond 8 KiB, native forced: passed to MPICH as bytes, right")


def main():
    with tempfile.TemporaryDirectory(prefix="fuzz-catches-") as work:
        try:
            check_bad_input(work)
            check_broken(work)
            check_known_fault(work)
        except Failure as e:
            print(f"FAILED: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
