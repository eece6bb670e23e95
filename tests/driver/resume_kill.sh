#!/usr/bin/env bash
# Resume after kill -9 in the middle of a sweep: the killed run leaves *.tmp files; the
# re-run keeps every point finished before the kill (byte for byte), measures the rest,
# and writes no duplicate and loses no row.
source "$(dirname "$0")/lib.sh"
start_interruptible_sweep
kill -9 $(rank_pids "$launcher") 2>/dev/null || true
wait "$launcher" 2>/dev/null && fail "the killed run exited 0" || true
[[ -f out/raw-L0.csv.tmp && -f out/summary-L0.csv.tmp && ! -f out/summary-L0.csv ]] || fail "no .tmp files after kill -9"
done_before=$(data_lines out/summary-L0.csv.tmp)
total=$(plan_points plan.csv)
((done_before < total)) || fail "the run finished before the kill; enlarge the sweep"
note "killed after $done_before of $total points"
cp out/raw-L0.csv.tmp raw-before.csv
cp out/summary-L0.csv.tmp summary-before.csv

resume_sweep
# Every point complete before the kill is kept unchanged (its raw rows byte for byte).
$PY <<'PY'
import csv
before = {r["point"] for r in csv.DictReader(open("summary-before.csv"))}
raw_before = [l for l in open("raw-before.csv").read().splitlines()[1:] if l.split(",")[2] in before]
after = set(open("out/raw-L0.csv").read().splitlines()[1:])
missing = [l for l in raw_before if l not in after]
assert not missing, f"{len(missing)} rows of finished points lost, e.g. {missing[0]}"
import json
meta = json.load(open("out/meta-L0.json"))
assert meta["points"]["resumed"] == len(before), meta["points"]
print(f"{len(before)} points kept from the killed run, {len(raw_before)} raw rows unchanged")
PY
echo "PASS resume after kill -9"
