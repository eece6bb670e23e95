#!/usr/bin/env bash
# SIGTERM mid-sweep (what Slurm sends at a time limit): all ranks agree to stop, every
# finished point is on disk under its final name, meta says complete: false, the exit code
# is 143; a re-run completes the launch.
source "$(dirname "$0")/lib.sh"
CFG=$REPO/configs/quick.yaml
SETS=(--set "groups.ratios=[1/1]" --set "sizes=[1KiB, 2KiB, 4KiB, 8KiB]" --set timing.reps=12 --set timing.warmup=1)
run_bench "$CFG" --dry-run --format csv "${SETS[@]}" >plan.csv

run_bench "$CFG" --out out --quiet "${SETS[@]}" &
launcher=$!
wait_for_points out/summary-L0.csv.tmp 2 90
kill -TERM $(rank_pids "$launcher")
rc=0
wait "$launcher" || rc=$?
((rc == 143)) || fail "exit code $rc after SIGTERM, want 143"
[[ -f out/raw-L0.csv && -f out/summary-L0.csv && -f out/meta-L0.json ]] || fail "final files missing after SIGTERM"
$CHECK out --plan plan.csv --reps 12 --launches 1 --partial --min-points 2
$PY -c 'import json; m = json.load(open("out/meta-L0.json")); assert m["complete"] is False and m["interrupted_by"] == "SIGTERM", m["complete"]'
kept=$(data_lines out/summary-L0.csv)
note "stopped after $kept points"

run_bench "$CFG" --out out --quiet "${SETS[@]}" || fail "resume exit code $?"
$CHECK out --plan plan.csv --reps 12 --launches 1
echo "PASS SIGTERM: exit 143 with $kept points kept, resume completed"
