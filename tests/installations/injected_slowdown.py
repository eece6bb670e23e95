#!/usr/bin/python3
"""The CI injected-slowdown tests (ctest versions.openmpi.injected_slowdown and
versions.openmpi.injected_slowdown_preload, labels versions and timing): the pipeline of a release
comparison, re-measure on trip included, finds a synthetic release that no load can hide, made
by either of the calibration's two independent mechanisms.

This checks the pipeline, not the method's power: the power and the false-change rate are measured
by the calibration (docs/verdicts.md), not asserted here. So the effect is one that no load on the
machine can hide (beside two CPU-bound jobs a +50 % injection was found at 0 of 2 points at 8 + 8
launches, with noise floors of 12-46 %): a fixed delay per call, sized from the machine as the test
finds it. It is 100 ms against calls of 20-150 us on a quiet machine and of 4-20 ms scheduler ticks
beside two CPU-bound jobs (there a fixed 5 ms read only 1.5-1.8x and 50 ms 3.9-4.5x; a relative
+1000 % was tried first: on a loaded machine it multiplied every preemption by 11, and the slowed
launches grew from 11 s to 163 s). Where the base's own calls are slower than that (its warm-up
launch, before the synthetic release is made), the delay is SCALE times the slowest of its
medians at the injected points, at most 400 ms: beside two busy loops, a build and a second MPI
test suite (load 5-6) the base's launch medians at 256 KiB ranged over 4-88 ms, and a fixed 100 ms
read x6.0 with a noise floor of 122 %, too close to it for 8 paired rounds to decide; beside three
busy loops 50 times (1 s) read x47-57, and each test slept 5 of its 6 minutes.

Two installations of one library, through the path a release comparison takes: the Debian Open
MPI (collbench of build/openmpi) and a synthetic release of it in a private registry. With
INJECTED_MECHANISM=pmpi-delay (the default) that is `<base>+late<N>ms`, derived from it
(registry.derive: the PMPI library of build/openmpi preloaded, its delay mode slowing native
MPI_Allgather calls of 128 KiB and more by a fixed N ms); with INJECTED_MECHANISM=slowlib it is
`<base>+preload<N>ms`, an ordinary added installation (registry.add_entry: the base's record with
the preload slowdown library SLOWLIB, tests/slowlib, sleeping N ms after every MPI_Allgather on
an intercommunicator whose block is 128 KiB or more). A small
experiment (2 processes, native and root-gathering at 16, 128 and 256 KiB: 6 points, two of them in
the rule's subset) runs one warm-up launch of the base (not kept; it sizes N), then 4 rounds
(collrun --installations: one launch per installation a round, in a seeded order). The verdicts
are the trend's, as collrepro versions takes them: the points whose row tripped the screen are
measured again with 8 fresh rounds (versions.subset_config) and take their verdict from those
(versions.merge_verdicts). It asserts: the rule's subset (the mechanism's own predicate) is the two native points; both end
flagged slower (a regression, or changed with a ratio above 1) with a ratio of at least 3, or,
where the base's own calls are so slow that N ms cannot triple them, of at least a quarter of
what N ms adds to them (1 + 0.25 * N ms / the base's median at the point: beside two CPU-bound
jobs and other work at a load average of 15-18 the base's calls took 50-160 ms, and 100 ms read
x2.3-2.8); no untouched point is flagged with a change of 3 or more either way. Smaller false
changes among the untouched points are printed, not asserted: their rate is the calibration's.

The build passes WORK (a scratch directory), REPO, and for the slowlib mechanism SLOWLIB (the
library) in the environment (tests/CMakeLists.txt).
"""

import math
import os
import shutil
import sys
import time

LAUNCHES = int(os.environ.get("INJECTED_LAUNCHES", "4"))      # the screen: 4 a side, the least for a verdict
REMEASURE = int(os.environ.get("INJECTED_REMEASURE", "8"))    # the tripped points again, fresh
MECHANISM = os.environ.get("INJECTED_MECHANISM", "pmpi-delay")
RULES = {"pmpi-delay": "allgather:>=128KiB:+{ms}ms", "slowlib": "MPI_Allgather,inter,131072,+{ms}ms"}
LEAST = 3.0   # the injected ratio is hundreds on a quiet machine; no untouched point may reach this either way
AMOUNT_MS = (100, 400)   # the fixed delay of both mechanisms' rules: at least, at most (their grammars' cap is 1 s)
SCALE = 20    # the delay is at least this many times the base's slowest warm-up median at the injected points
SHARE = 0.25     # of the injected effect on a loaded machine, at the least
WANT = [("native", 131072), ("native", 262144)]
OVERRIDES = {"algorithms": ["native", "root-gathering"], "sizes": ["16KiB", "128KiB", "256KiB"],
             "blocks": ["1:1"], "groups": {"ratios": ["1/1"]}, "launches": LAUNCHES}
REPS = 10   # the median of 10 is robust to 4 disturbed repetitions; each slowed call sleeps the delay (at
            # 20 and 100 ms a test took 78 s, most of it asleep; the verdicts take per-launch medians)


def need(name):
    value = os.environ.get(name)
    if not value:
        sys.exit(f"injected_slowdown: {name} is not set: run this through ctest (tests/CMakeLists.txt)")
    return value


def interleaved(config, root, names, launches):
    """`launches` rounds into root/<name>/: collrun --installations, each round in a seeded order."""
    from collrepro.versions import run as versions
    rc = versions.interleaved(names, 2, launches, root, config)
    if rc != 0:
        sys.exit(f"injected_slowdown: collrun into {root} failed (exit {rc}, docs/exit-codes.md)")


def verdicts(root, base_name):
    """(the trend verdicts of root's two installations, the base's per-launch medians)."""
    from collrepro.versions import calibration
    from collrepro.analysis.loading import inventory
    entries = inventory.load_tree([root])
    base = next(e for e in entries if e.installation.name == base_name)
    other = next(e for e in entries if e is not base)
    table, per = calibration.verdict_table(base, other)
    return table, per[per["installation"] == base_name]


def at_point(launches, algorithm, msg_bytes):
    return launches[(launches["algorithm"] == algorithm) & (launches["msg_bytes"] == msg_bytes)]


def least_ratio(base_launches, algorithm, msg_bytes, amount_s):
    """The smallest ratio an injected point may read: LEAST, or, where the base's calls there are so
    slow that the delay (amount_s) cannot triple them, SHARE of what it adds to their median."""
    return min(LEAST, 1 + SHARE * amount_s / float(at_point(base_launches, algorithm, msg_bytes)["median"].median()))


def sized_delay_ms(root):
    """The delay of the synthetic release, from the base's warm-up launch in root: AMOUNT_MS's least,
    or SCALE times the slowest of its medians at the injected points where that is more (a loaded
    machine), at most AMOUNT_MS's most; (ms, that slowest median in seconds)."""
    from collrepro.analysis.loading import inventory
    from collrepro.analysis.verdicts import trend
    launches = trend.per_installation(inventory.load_tree([root]))
    slowest = max(float(at_point(launches, a, m)["median"].max()) for a, m in WANT)
    least, most = AMOUNT_MS
    return min(most, max(least, math.ceil(SCALE * slowest * 1e3 / 10) * 10)), slowest


def main():
    sys.path.insert(0, os.path.join(need("REPO"), "python"))
    import pandas
    import yaml
    from collrepro.versions import calibration
    from collrepro.versions import run as versions
    from collrepro.installations import delay, registry, slowlib

    start = time.monotonic()
    work = os.path.join(need("WORK"), "injected")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.environ["COLLREPRO_CONFIG_DIR"] = os.path.join(work, "config")   # a private registry
    if MECHANISM not in RULES:
        sys.exit(f"injected_slowdown: INJECTED_MECHANISM={MECHANISM} is not one of {', '.join(RULES)}")
    base = registry.resolve("openmpi")        # the Debian Open MPI; its collbench is build/openmpi
    config = yaml.safe_load(open(os.path.join(need("REPO"), "configs", "quick.yaml"), encoding="utf-8"))
    config.update(OVERRIDES, experiment="injected")
    config["timing"] = dict(config.get("timing") or {}, reps=REPS)
    first_config = os.path.join(work, "injected.yaml")
    with open(first_config, "w", encoding="utf-8") as f:
        yaml.safe_dump(config, f, sort_keys=False)
    interleaved(first_config, os.path.join(work, "warmup"), [base.name], 1)   # caches warm, the delay sized; not kept
    ms, slowest = sized_delay_ms(os.path.join(work, "warmup"))
    print(f"injected_slowdown: the base's slowest warm-up median at the injected points {slowest * 1e3:.2f} ms: "
          f"a delay of {ms} ms")
    rule = RULES[MECHANISM].format(ms=ms)
    if MECHANISM == "slowlib":   # an ordinary added installation whose environment preloads the library
        slow = registry.add_entry(slowlib.installation(f"{base.name}+preload{ms}ms", base, rule, need("SLOWLIB")))
        affected = slowlib.affected
    else:
        slow = registry.derive(f"{base.name}+late{ms}ms", base.name, delay=rule)
        affected = delay.affected
    names = [base.name, slow.name]
    interleaved(first_config, os.path.join(work, "first"), names, LAUNCHES)
    first, base_launches = verdicts(os.path.join(work, "first"), base.name)
    trip = versions.tripped_rows(first)
    fresh = None
    if len(trip):
        subset = os.path.join(work, "remeasure.yaml")
        with open(subset, "w", encoding="utf-8") as f:
            yaml.safe_dump(dict(versions.subset_config(config, trip), launches=REMEASURE), f, sort_keys=False)
        interleaved(subset, os.path.join(work, "remeasure"), names, REMEASURE)
        fresh, again = verdicts(os.path.join(work, "remeasure"), base.name)
        base_launches = pandas.concat([base_launches, again], ignore_index=True)
    table, counts = versions.merge_verdicts(first, fresh)
    injected = [bool(affected(rule, row)) for row in table.to_dict("records")]
    table = table.assign(injected=injected)
    hit, untouched = table[table["injected"]], table[~table["injected"]]
    slower = hit["verdict"].astype(str).isin(calibration.SLOWER_WORDS) | (
        (hit["verdict"].astype(str) == "changed-not-comparable") & (hit["ratio"] > 1))
    changed = untouched["verdict"].astype(str).isin(calibration.CHANGED_WORDS)
    shown = [c for c in ("algorithm", "msg_bytes", "injected", "first_verdict", "verdict", "reason", "ratio",
                         "threshold") if c in table.columns]
    print(table[shown].to_string(index=False))
    failures = []
    if sorted(zip(hit["algorithm"], hit["msg_bytes"])) != WANT:
        failures.append(f"the rule's subset is {sorted(zip(hit['algorithm'], hit['msg_bytes']))}, want {WANT}")
    if len(table) != 6:
        failures.append(f"{len(table)} points compared, want 6")
    if int(slower.sum()) != len(hit):
        failures.append(f"only {int(slower.sum())} of {len(hit)} injected points flagged slower")
    least = [least_ratio(base_launches, a, m, ms / 1e3) for a, m in zip(hit["algorithm"], hit["msg_bytes"])]
    hit = hit.assign(least=least)
    weak = hit[~(hit["ratio"] >= hit["least"])]
    if len(weak):
        failures.append(f"injected points with a ratio under their least (3, or a quarter of what {ms} ms adds to "
                        f"the base): {weak[['algorithm', 'msg_bytes', 'ratio', 'least']].to_dict('records')}")
    big = untouched[changed & ((untouched["ratio"] >= LEAST) | (untouched["ratio"] <= 1 / LEAST))]
    if len(big):
        failures.append(f"untouched points flagged with a change of the injected size: "
                        f"{big[['algorithm', 'msg_bytes', 'verdict', 'ratio']].to_dict('records')}")
    print(f"injected_slowdown ({MECHANISM}: {slow.name}): {LAUNCHES} + {LAUNCHES} launches, {versions.remeasure_summary(counts, REMEASURE)}; "
          f"detected {int(slower.sum())}/{len(hit)} (ratios {', '.join(f'{r:.2f}' for r in hit['ratio'])}, least "
          f"{', '.join(f'{x:.2f}' for x in hit['least'])}), smaller false changes (printed, not asserted: the "
          f"calibration's) {int(changed.sum())}/{len(untouched)}; {time.monotonic() - start:.0f} s")
    for f in failures:
        print(f"injected_slowdown: FAILED: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
