#!/usr/bin/python3
"""The CI injected-slowdown test (ctest versions.openmpi.injected_slowdown, issue 25): a small
synthetic release is told apart from its base by the version verdicts, re-measure on trip included.

Two installations of one library: the base (the Debian Open MPI that build/openmpi uses) and
`<base>+slow50`, the same library with the PMPI library preloaded and its delay mode slowing
native MPI_Allgather calls of 128 KiB and more by 50 % of their own duration
(COLLREPRO_PMPI_DELAY). A small experiment (2 processes, native and root-gathering at 16, 128 and
256 KiB: 6 points, two of them in the rule's subset) runs 4 launches a side, interleaved,
through the same collbench and metadata a release run has (after one warm-up launch a side,
not kept). The verdicts are the trend's, as collrepro versions takes them: the points whose row
tripped the screen are measured again with 8 fresh launches a side (versions.subset_config)
and take their verdict from those (versions.merge_verdicts). It asserts: the rule's subset (the
delay mode's own predicate) is the two native points; both end flagged slower (a regression, or
changed with a ratio above 1); none of the four untouched points is flagged.

The build passes its paths in the environment (tests/CMakeLists.txt): COLLBENCH, PMPI_LIBRARY,
MPIEXEC, MPIEXEC_EXTRA, WORK, REPO. 25 to 50 s on a loaded 2-core machine (50 when points trip).
"""

import json
import os
import shutil
import subprocess
import sys
import time

LAUNCHES = int(os.environ.get("INJECTED_LAUNCHES", "4"))      # the screen: 4 a side, the least for a verdict
REMEASURE = int(os.environ.get("INJECTED_REMEASURE", "8"))    # the tripped points again, fresh
RULE = "allgather:>=128KiB:+50%"
WANT = [("native", 131072), ("native", 262144)]
OVERRIDES = {"algorithms": ["native", "root-gathering"], "sizes": ["16KiB", "128KiB", "256KiB"],
             "blocks": ["1:1"], "groups": {"ratios": ["1/1"]}, "launches": LAUNCHES}
REPS = 200  # a few-millisecond disturbance moves fewer than half of a point's repetitions


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


def launch(config, out, index, variables):
    flags = []
    for k, v in variables.items():
        flags += ["-x", f"{k}={v}"]
    cmd = [need("MPIEXEC"), "-n", "2", *os.environ.get("MPIEXEC_EXTRA", "").split(), *flags,
           need("COLLBENCH"), config, "--launch", str(index), "--out", out, "--quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"injected_slowdown: launch {index} into {out} failed (exit {p.returncode}):\n{p.stdout}{p.stderr}")


def interleaved(config, root, sides, launches):
    """`launches` launches a side into root/<name>/, the order alternating per round."""
    for index in range(launches):
        for name, variables in (sides if index % 2 == 0 else sides[::-1]):
            launch(config, os.path.join(root, name), index, variables)


def verdicts(root):
    from collrepro import calibration
    from collrepro.analysis import inventory
    entries = inventory.load_tree([root])
    base = next(e for e in entries if calibration.setting_of(e.installation.name) is None)
    other = next(e for e in entries if e is not base)
    return calibration.verdict_table(base, other)[0]


def main():
    sys.path.insert(0, os.path.join(need("REPO"), "python"))
    import yaml
    from collrepro import calibration, versions
    from collrepro.installations import delay, registry

    start = time.monotonic()
    base = registry.resolve("openmpi")
    work = os.path.join(need("WORK"), "injected")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    config = yaml.safe_load(open(os.path.join(need("REPO"), "configs", "quick.yaml"), encoding="utf-8"))
    config.update(OVERRIDES, experiment="injected")
    config["timing"] = dict(config.get("timing") or {}, reps=REPS)
    first_config = os.path.join(work, "injected.yaml")
    with open(first_config, "w", encoding="utf-8") as f:
        yaml.safe_dump(config, f, sort_keys=False)
    sides = [(base.name, {"COLLREPRO_MPI_INSTALLATION": json.dumps(record(base, base.name))}),
             (base.name + "+slow50", {"COLLREPRO_MPI_INSTALLATION": json.dumps(record(base, base.name + "+slow50", RULE)),
                                      "LD_PRELOAD": need("PMPI_LIBRARY"), "COLLREPRO_PMPI_DELAY": RULE})]
    for name, variables in sides:                      # caches and clocks warm; not kept
        launch(first_config, os.path.join(work, "warmup", name), 0, variables)
    interleaved(first_config, os.path.join(work, "first"), sides, LAUNCHES)
    first = verdicts(os.path.join(work, "first"))
    trip = versions.tripped_rows(first)
    fresh = None
    if len(trip):
        subset = os.path.join(work, "remeasure.yaml")
        with open(subset, "w", encoding="utf-8") as f:
            yaml.safe_dump(dict(versions.subset_config(config, trip), launches=REMEASURE), f, sort_keys=False)
        interleaved(subset, os.path.join(work, "remeasure"), sides, REMEASURE)
        fresh = verdicts(os.path.join(work, "remeasure"))
    table, counts = versions.merge_verdicts(first, fresh)
    result = calibration.assess(table, RULE, delay.affected, 50)
    table = table.assign(injected=result.pop("injected_flags"))
    shown = [c for c in ("algorithm", "msg_bytes", "injected", "first_verdict", "verdict", "reason", "ratio",
                         "threshold") if c in table.columns]
    print(table[shown].to_string(index=False))
    failures = []
    hit = table[table["injected"]]
    if sorted(zip(hit["algorithm"], hit["msg_bytes"])) != WANT:
        failures.append(f"the rule's subset is {sorted(zip(hit['algorithm'], hit['msg_bytes']))}, want {WANT}")
    if result["points"] != 6:
        failures.append(f"{result['points']} points compared, want 6")
    if result["detected"] != result["injected"]:
        failures.append(f"only {result['detected']} of {result['injected']} injected points flagged slower")
    if result["false_changes"]:
        failures.append(f"{result['false_changes']} of {result['outside']} untouched points flagged changed")
    print(f"injected_slowdown: {LAUNCHES} + {LAUNCHES} launches, {versions.remeasure_summary(counts, REMEASURE)}; "
          f"detected {result['detected']}/{result['injected']}, false changes "
          f"{result['false_changes']}/{result['outside']}; {time.monotonic() - start:.0f} s")
    for f in failures:
        print(f"injected_slowdown: FAILED: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
