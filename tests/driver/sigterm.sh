#!/usr/bin/env bash
# SIGTERM mid-sweep (what Slurm sends at a time limit): all ranks agree to stop, every
# finished point is on disk under its final name, meta says complete: false, the exit code
# is 143; a re-run completes the launch.
source "$(dirname "$0")/lib.sh"
start_interruptible_sweep
kill -TERM $(rank_pids "$launcher")
rc=0
wait "$launcher" || rc=$?
((rc == 143)) || fail "exit code $rc after SIGTERM, want 143"
[[ -f out/raw-L0.csv && -f out/summary-L0.csv && -f out/meta-L0.json ]] || fail "final files missing after SIGTERM"
$CHECK out --plan plan.csv --reps 12 --launches 1 --partial --min-points 2
$PY -c 'import json; m = json.load(open("out/meta-L0.json")); assert m["complete"] is False and m["interrupted_by"] == "SIGTERM", m["complete"]'
kept=$(data_lines out/summary-L0.csv)
note "stopped after $kept points"

resume_sweep
echo "PASS SIGTERM: exit 143 with $kept points kept, resume completed"
