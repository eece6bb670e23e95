#!/usr/bin/env bash
# End-to-end: configs/quick.yaml shrunk with --set, two launches (the second as two
# slices), checked column by column and row by row against the dry-run plan.
source "$(dirname "$0")/lib.sh"
CFG=$REPO/configs/quick.yaml
SETS=(--set "groups.ratios=[1/1, 3/1]" --set "sizes=[2KiB]" --set timing.reps=4 --set timing.warmup=1)

run_bench "$CFG" --dry-run --format csv "${SETS[@]}" >plan.csv
points=$(plan_points plan.csv)
((points > 0)) || fail "empty plan"
note "plan: $points points"
run_bench "$CFG" --out out --launch 0 --quiet "${SETS[@]}" || fail "launch 0 exit code $?"
run_bench "$CFG" --out out --launch 1 --slice 0/2 --quiet "${SETS[@]}" || fail "launch 1 slice 0 exit code $?"
run_bench "$CFG" --out out --launch 1 --slice 1/2 --quiet "${SETS[@]}" || fail "launch 1 slice 1 exit code $?"
$CHECK out --plan plan.csv --reps 4 --launches 1
[[ -f out/raw-L1-S0.csv && -f out/raw-L1-S1.csv && -f out/meta-L1-S1.json ]] || fail "slice files missing"
# Launch 1 = its two slices: together exactly the plan.
$PY - "$points" <<'PY'
import csv, sys
pts = [int(r["point"]) for s in (0, 1) for r in csv.DictReader(open(f"out/summary-L1-S{s}.csv"))]
assert sorted(pts) == list(range(int(sys.argv[1]))), pts
rows = sum(1 for s in (0, 1) for _ in csv.DictReader(open(f"out/raw-L1-S{s}.csv")))
assert rows == 4 * int(sys.argv[1]), rows
PY
# Exact row counts of launch 0.
(( $(data_lines out/summary-L0.csv) == points )) || fail "summary rows"
(( $(data_lines out/raw-L0.csv) == 4 * points )) || fail "raw rows"
# A re-run of a complete launch does nothing and changes nothing.
before=$(md5sum out/raw-L0.csv out/summary-L0.csv out/meta-L0.json)
run_bench "$CFG" --out out --launch 0 --quiet "${SETS[@]}" || fail "re-run exit code $?"
[[ $before == "$(md5sum out/raw-L0.csv out/summary-L0.csv out/meta-L0.json)" ]] || fail "re-run changed launch 0"
echo "PASS e2e: $points points x 4 repetitions, 2 launches"
