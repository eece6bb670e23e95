#!/usr/bin/env bash
# Window synchronization on one node: the clock offsets after synchronization are near zero
# (|offset| < 1 ms, for a node-wide clock and for MPI_Wtime), and with a window far too small
# for the call late starts are detected, marked valid=0 and counted in summary and meta.
source "$(dirname "$0")/lib.sh"
CFG=$REPO/configs/quick.yaml
SETS=(--set "groups.ratios=[1/1]" --set "blocks=[1:1]" --set "sizes=[1KiB]" --set timing.reps=20
      --set timing.sync=window --set "algorithms=[native]")

for clock in monotonic mpi-wtime; do
  run_bench "$CFG" --out "out-$clock" --quiet "${SETS[@]}" --set timing.clock=$clock || fail "$clock: exit code $?"
  $PY - "out-$clock/meta-L0.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
s = m["sync"]
assert s["method"] == "window", s["method"]
# One node, one hardware clock: the true offset is zero. The synchronization is exact to
# within its bound (half the longest best round trip behind the rank's model) and the check
# measures to within half its own best round trip; both are large on a loaded node, above all
# with MPICH, which busy-polls when oversubscribed.
worst = max(abs(o) for c in s["checks"] for o in c["offsets_s"])
for c in s["checks"]:
    for r, (o, rtt, bound) in enumerate(zip(c["offsets_s"], c["round_trips_s"], c["sync_bounds_s"])):
        assert abs(o) < 1e-3 + bound + rtt / 2, \
            f"rank {r}: clock offset {o} s after synchronization (sync bound {bound} s, check round trip {rtt} s)"
print(f"{m['clock']['name']}: max |offset| {worst:.3g} s over {len(s['checks'])} checks, "
      f"resolution {m['clock']['resolution_s']:.3g} s, window {s['window_used_s']}")
PY
done

run_bench "$CFG" --out out-tiny --quiet "${SETS[@]}" --set timing.clock=monotonic --set timing.window=1ns || fail "tiny window: exit code $?"
$PY <<'PY'
import csv, json
raw = list(csv.DictReader(open("out-tiny/raw-L0.csv")))
summary = list(csv.DictReader(open("out-tiny/summary-L0.csv")))
meta = json.load(open("out-tiny/meta-L0.json"))
invalid = sum(r["valid"] == "0" for r in raw)
counted = sum(int(s["n_invalid"]) for s in summary)
assert invalid > 0, "a 1 ns window produced no late start"
assert invalid == counted, (invalid, counted)
assert meta["sync"]["invalid_rate"] > 0, meta["sync"]
assert abs(meta["sync"]["invalid_rate"] - invalid / len(raw)) < 1e-12
print(f"1 ns window: {invalid} of {len(raw)} repetitions invalid, invalid_rate {meta['sync']['invalid_rate']:.3f}")
PY
echo "PASS window sync"
