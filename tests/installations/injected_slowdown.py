#!/usr/bin/python3
"""The CI injected-slowdown test (ctest versions.openmpi.injected_slowdown, issue 25): a small
synthetic release is told apart from its base by the version verdicts.

Two installations of one library: the base (Debian Open MPI, as built) and `<base>+slow50`, the
same library with the PMPI library preloaded and its delay mode slowing native MPI_Allgather
calls of 64 KiB and more by 50 % of their own duration (COLLREPRO_PMPI_DELAY). A small
experiment (2 processes, native and root-gathering at 16, 64 and 256 KiB: 6 points, two of
them in the rule's subset) runs LAUNCHES launches on each side, interleaved, through the same
collbench and metadata a release run has; then collrepro.calibration compares them as the trend
compares releases. It asserts: the rule's subset (the delay mode's own predicate) is the two
native points; both are flagged slower (a regression, or changed with a ratio above 1); none of
the four untouched points is flagged.

The build passes its paths in the environment (tests/CMakeLists.txt): COLLBENCH, PMPI_LIBRARY,
MPIEXEC, MPIEXEC_EXTRA, WORK, REPO. About 30 s on a loaded 2-core machine.
"""

import json
import os
import shutil
import subprocess
import sys
import time

LAUNCHES = int(os.environ.get("INJECTED_LAUNCHES", "6"))   # 6 + 6: exact p down to 2/924
RULE = "allgather:>=64KiB:+50%"
SETS = ["algorithms=[native, root-gathering]", "sizes=[16KiB, 64KiB, 256KiB]", "blocks=[1:1]",
        "groups.ratios=[1/1]", "timing.reps=10", f"launches={LAUNCHES}"]


def need(name):
    value = os.environ.get(name)
    if not value:
        sys.exit(f"injected_slowdown: {name} is not set: run this through ctest (tests/CMakeLists.txt)")
    return value


def record(base, name, rule=""):
    """The installation record collbench copies into the metadata (COLLREPRO_MPI_INSTALLATION)."""
    rec = {k: getattr(base, k) for k in ("kind", "version", "prefix", "origin", "configure")}
    rec["name"] = name
    if rule:
        rec["env"] = {"COLLREPRO_PMPI_DELAY": rule}
    return rec


def launch(out, index, variables):
    flags = []
    for k, v in variables.items():
        flags += ["-x", f"{k}={v}"]
    cmd = [need("MPIEXEC"), "-n", "2", *os.environ.get("MPIEXEC_EXTRA", "").split(), *flags,
           need("COLLBENCH"), os.path.join(need("REPO"), "configs", "quick.yaml"), "--launch", str(index),
           "--out", out, "--quiet"]
    for s in SETS:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"injected_slowdown: launch {index} into {out} failed (exit {p.returncode}):\n{p.stdout}{p.stderr}")


def main():
    sys.path.insert(0, os.path.join(need("REPO"), "python"))
    from collrepro import calibration
    from collrepro.analysis import inventory
    from collrepro.installations import registry

    start = time.monotonic()
    base = registry.resolve("openmpi")                 # the Debian Open MPI that build/openmpi uses
    root = os.path.join(need("WORK"), "injected")
    shutil.rmtree(root, ignore_errors=True)
    sides = [
        (os.path.join(root, "injected", base.name), {"COLLREPRO_MPI_INSTALLATION": json.dumps(record(base, base.name))}),
        (os.path.join(root, "injected", base.name + "+slow50"),
         {"COLLREPRO_MPI_INSTALLATION": json.dumps(record(base, base.name + "+slow50", RULE)),
          "LD_PRELOAD": need("PMPI_LIBRARY"), "COLLREPRO_PMPI_DELAY": RULE}),
    ]
    for index in range(LAUNCHES):                      # interleaved, the order alternating per round
        for out, variables in (sides if index % 2 == 0 else sides[::-1]):
            launch(out, index, variables)
    measured = time.monotonic() - start
    summary, points = calibration.analyse(inventory.load_tree([root]))
    row = summary.iloc[0]
    print(points[["algorithm", "msg_bytes", "injected", "verdict", "ratio"]].to_string(index=False))
    failures = []
    hit = points[points["injected"]]
    if sorted(zip(hit["algorithm"], hit["msg_bytes"])) != [("native", 65536), ("native", 262144)]:
        failures.append(f"the rule's subset is {sorted(zip(hit['algorithm'], hit['msg_bytes']))}, "
                        "want native at 64 and 256 KiB")
    if row["points"] != 6:
        failures.append(f"{row['points']} points compared, want 6")
    if row["detected"] != row["injected"]:
        failures.append(f"only {row['detected']} of {row['injected']} injected points flagged slower")
    if row["false_changes"]:
        failures.append(f"{row['false_changes']} of {row['outside']} untouched points flagged changed")
    print(f"injected_slowdown: {LAUNCHES} + {LAUNCHES} launches in {measured:.0f} s, analysis "
          f"{time.monotonic() - start - measured:.0f} s; detected {row['detected']}/{row['injected']}, "
          f"false changes {row['false_changes']}/{row['outside']}")
    for f in failures:
        print(f"injected_slowdown: FAILED: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
