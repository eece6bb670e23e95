#!/usr/bin/python3
"""The CI injected-slowdown test (ctest versions.openmpi.injected_slowdown, issue 25): a small
synthetic release is told apart from its base by the version verdicts, re-measure on trip included.

Two installations of one library, through the path a release comparison takes: the Debian Open
MPI (collbench of build/openmpi) and `<base>+slow50`, derived from it in a private registry
(registry.derive: the PMPI library of build/openmpi preloaded, its delay mode slowing native
MPI_Allgather calls of 128 KiB and more by 50 % of their own duration). A small experiment (2
processes, native and root-gathering at 16, 128 and 256 KiB: 6 points, two of them in the rule's
subset) runs 4 rounds (collrun --installations: one launch per installation a round, in a seeded
order), after one warm-up round not kept. The verdicts are the trend's, as collrepro versions takes
them: the points whose row tripped the screen are measured again with 8 fresh rounds
(versions.subset_config) and take their verdict from those (versions.merge_verdicts). It asserts:
the rule's subset (the delay mode's own predicate) is the two native points; both end flagged
slower (a regression, or changed with a ratio above 1); none of the four untouched points is
flagged.

The build passes WORK (a scratch directory) and REPO in the environment (tests/CMakeLists.txt).
45 to 100 s on this loaded 2-core machine (load 4 to 8).
"""

import os
import shutil
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


def interleaved(config, root, names, launches):
    """`launches` rounds into root/<name>/: collrun --installations, each round in a seeded order."""
    from collrepro import versions
    rc = versions.interleaved(names, 2, launches, root, config)
    if rc != 0:
        sys.exit(f"injected_slowdown: collrun into {root} failed (exit {rc}, the README's exit codes)")


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
    work = os.path.join(need("WORK"), "injected")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.environ["COLLREPRO_CONFIG_DIR"] = os.path.join(work, "config")   # a private registry
    base = registry.resolve("openmpi")        # the Debian Open MPI; its collbench is build/openmpi
    slow = registry.derive(base.name + "+slow50", base.name, delay=RULE)
    names = [base.name, slow.name]
    config = yaml.safe_load(open(os.path.join(need("REPO"), "configs", "quick.yaml"), encoding="utf-8"))
    config.update(OVERRIDES, experiment="injected")
    config["timing"] = dict(config.get("timing") or {}, reps=REPS)
    first_config = os.path.join(work, "injected.yaml")
    with open(first_config, "w", encoding="utf-8") as f:
        yaml.safe_dump(config, f, sort_keys=False)
    interleaved(first_config, os.path.join(work, "warmup"), names, 1)   # caches and clocks warm; not kept
    interleaved(first_config, os.path.join(work, "first"), names, LAUNCHES)
    first = verdicts(os.path.join(work, "first"))
    trip = versions.tripped_rows(first)
    fresh = None
    if len(trip):
        subset = os.path.join(work, "remeasure.yaml")
        with open(subset, "w", encoding="utf-8") as f:
            yaml.safe_dump(dict(versions.subset_config(config, trip), launches=REMEASURE), f, sort_keys=False)
        interleaved(subset, os.path.join(work, "remeasure"), names, REMEASURE)
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
