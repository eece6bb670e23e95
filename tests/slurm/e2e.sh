#!/usr/bin/env bash
# End-to-end test of slurm/collslurm on a real, private single-node Slurm (ctest: slurm.e2e).
#
#  1. starts munged + slurmctld + slurmd in a temporary directory on 127.0.0.1 (local_slurm.sh);
#  2. run 1: configs/quick.yaml shrunk to 8 points at 4 processes (oversubscribed), 2 launches
#     x 3 slices (3+3+2 points) = 6 array tasks, throttle 2, launched with the build's own mpirun inside the
#     allocation; waits, collects, and checks every (point, launch) pair against collbench's own
#     dry-run plan (exactly once, all repetitions, Slurm job/task ids in the metadata); the
#     analysis reads the collected directory;
#  3. run 2: 6 slower points (window sync, >= 1 s each), 2 launches x 2 slices, throttle 1, launched with srun --mpi=pmix;
#     cancels the running task after its first point and one pending task; collect must report
#     exactly their missing pairs; resubmit completes both (the interrupted one resumes);
#  4. stops the daemons (also on failure).
#  Optional (COLLSLURM_E2E_MPICH_BUILD=<an MPICH build dir>): run 1 again with MPICH into the same
#  --out (DIR/openmpi and DIR/mpich), status and collect of both, analysis/analyze compare.
# Environment (ctest sets them): COLLBENCH (an Open MPI collbench), REPO, WORK (scratch dir).
set -euo pipefail
REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
COLLBENCH=${COLLBENCH:-$REPO/build/openmpi/bench/collbench}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/collslurm-e2e.XXXXXX")}
PY=/usr/bin/python3
CS=("$REPO/slurm/collslurm")
CHECK=("$PY" "$REPO/tests/slurm/check_run.py")
[[ -x $COLLBENCH ]] || { echo "FAIL: no collbench at $COLLBENCH (build the openmpi preset, or set COLLBENCH)" >&2; exit 1; }
COLLBENCH=$(realpath "$COLLBENCH")
BUILD=$(cd "$(dirname "$COLLBENCH")/.." && pwd)
[[ -z ${COLLSLURM_E2E_MPICH_BUILD:-} ]] || COLLSLURM_E2E_MPICH_BUILD=$(realpath "$COLLSLURM_E2E_MPICH_BUILD")
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
# The tests' MPI environment (Open MPI as root, oversubscribed on a small machine, shared-memory
# copies without CMA in containers; MPICH's yielding): python/collrepro/mpienv.py.
eval "$(PYTHONPATH="$REPO/python" "$PY" -m collrepro env)"

t0=$SECONDS
step() { echo "[e2e +$((SECONDS - t0))s] $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# shellcheck source=tests/slurm/local_slurm.sh
source "$REPO/tests/slurm/local_slurm.sh"
diagnose() {
  echo "---- diagnostics: squeue, task logs, daemon logs" >&2
  squeue --array 2>&1 | head -20 >&2 || true
  for f in "$WORK"/run*/openmpi/logs/*.out; do [[ -f $f ]] && { echo "== $f" >&2; tail -n 15 "$f" >&2; }; done
  [[ -n ${LOCAL_SLURM_DIR:-} ]] && tail -n 25 "$LOCAL_SLURM_DIR"/log/slurmctld.log "$LOCAL_SLURM_DIR"/log/slurmd.log >&2 2>/dev/null
  true
}
finish() {
  local rc=$?
  ((rc == 0)) || diagnose
  local_slurm_stop "${LOCAL_SLURM_DIR:-}" || true
  echo "[e2e +$((SECONDS - t0))s] exit $rc"
  exit $rc
}
LOCAL_SLURM_NO_TRAP=1
trap finish EXIT
step "starting a private Slurm"
local_slurm_start || fail "the local Slurm did not start"

# squeue --array rows of a job: "task|STATE".
tasks_in() { squeue --array -h -j "$1" -o '%K|%T' 2>/dev/null || true; }

# ------------------------------------------------------------------ run 1: 6 tasks, mpirun
SHRINK=(--set 'groups.ratios=[1/1]' --set 'sizes=[1KiB, 4KiB]' --set 'blocks=["1:0", "1:1"]'
        --set 'algorithms=[native, root-gathering]' --set timing.reps=3 --set timing.warmup=1)
"$COLLBENCH" "$REPO/configs/quick.yaml" --dry-run --format csv --nprocs 4 "${SHRINK[@]}" >plan1.csv
points=$(awk -F, 'NR > 1 && $1 != ""' plan1.csv | wc -l)
((points == 8)) || fail "expected 8 points in the shrunk quick.yaml at 4 processes, collbench plans $points"

step "plan and submit run 1 (8 points, 2 launches x 3 slices, mpirun)"
"${CS[@]}" plan "$REPO/configs/quick.yaml" --build-dir "$BUILD" --np 4 --launches 2 --slices 3 --throttle 2 \
  "${SHRINK[@]}" | tee plan1.txt
grep -q "array: 6 tasks = 2 launches x 3 slices" plan1.txt || fail "plan: wrong task count"
grep -q "sbatch --array=0-5%2" plan1.txt || fail "plan: wrong array spec"
grep -Eq "^ +5 +1 +2  6..7 \(2\)$" plan1.txt || fail "plan: task 5 should be launch 1, slice 2, points 6..7"
out=$("${CS[@]}" submit "$REPO/configs/quick.yaml" --out "$WORK/run1" --build-dir "$BUILD" --np 4 --overcommit \
  --launches 2 --slices 3 --throttle 2 --time 00:05:00 --partition collrepro --account e2e \
  --set 'slurm.env={OMPI_MCA_btl_vader_single_copy_mechanism: none}' "${SHRINK[@]}")
echo "$out"
job1=$(sed -n 's/.*submitted job \([0-9]*\):.*/\1/p' <<<"$out")
[[ -n $job1 ]] || fail "no job id in: $out"
info=$(scontrol show job "$job1" 2>/dev/null | tr ' ' '\n' || true)
grep -qx "ArrayTaskThrottle=2" <<<"$info" || fail "throttle not applied: $(grep -i throttle <<<"$info")"
grep -qx "Partition=collrepro" <<<"$info" || fail "partition not applied"
grep -qx "Account=e2e" <<<"$info" || fail "account not applied"
grep -qx "TimeLimit=00:05:00" <<<"$info" || fail "time limit not applied: $(grep -i TimeLimit <<<"$info")"

step "waiting for run 1"
"${CS[@]}" status "$WORK/run1" --wait --timeout 400 --interval 1 || fail "run 1: status says not every task is done"
"${CS[@]}" collect "$WORK/run1" --into "$WORK/collected1" || fail "run 1: collect reports it incomplete"
"${CHECK[@]}" "$WORK/run1/openmpi" --plan plan1.csv --launches 2 --slices 3 --np 4 --reps 3 --job "$job1" ||
  fail "run 1: results do not match the plan"
"${CHECK[@]}" "$WORK/collected1" --plan plan1.csv --launches 2 --slices 3 --np 4 --reps 3 --job "$job1" ||
  fail "run 1: the collected copy does not match the plan"
for t in $(seq 0 5); do
  ls "$WORK/run1/openmpi/tasks/task-$t.job-"*.json >/dev/null 2>&1 || fail "run 1: no status file of task $t"
done
step "analysis reads the collected results"
"$REPO/analysis/analyze" aggregate "$WORK/collected1" -o agg1.csv || fail "analysis/analyze aggregate failed"
"$PY" - agg1.csv <<'PY' || fail "aggregate: wrong rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 8 and all(r["n_launches"] == "2" for r in rows), [(r["point"], r["n_launches"]) for r in rows]
PY

# ------------------------------------------------------------------ run 2: cancel, collect, resubmit (srun)
# Window synchronisation with a fixed 20 ms window: every repetition starts at an agreed time, so
# a point takes at least 51 x 20 ms, however fast the machine: the test can reliably cancel a
# task between its first and its last point.
SLOW=(--set 'groups.ratios=[1/1]' --set 'sizes=[1KiB]' --set 'blocks=["1:0", "1:1"]'
      --set 'algorithms=[native, root-gathering, fullduplex-allgather]' --set timing.reps=50 --set timing.warmup=1
      --set timing.sync=window --set timing.window=20ms)
"$COLLBENCH" "$REPO/configs/quick.yaml" --dry-run --format csv --nprocs 4 "${SLOW[@]}" >plan2.csv
step "submit run 2 (6 points, 2 launches x 2 slices, throttle 1, srun --mpi=pmix)"
out=$("${CS[@]}" submit "$REPO/configs/quick.yaml" --out "$WORK/run2" --build-dir "$BUILD" --np 4 --overcommit \
  --launches 2 --slices 2 --throttle 1 --launcher srun --srun-mpi pmix "${SLOW[@]}")
echo "$out"
job2=$(sed -n 's/.*submitted job \([0-9]*\):.*/\1/p' <<<"$out")
[[ -n $job2 ]] || fail "no job id in: $out"

# Cancel the running task once its first point is written (it keeps that point), and one
# pending task (it never starts).
res2=$WORK/run2/openmpi
running="" deadline=$((SECONDS + 240))
while [[ -z $running ]]; do
  ((SECONDS < deadline)) || fail "run 2: no task was caught running with a finished point"
  while IFS='|' read -r t state; do
    [[ $state == RUNNING ]] || continue
    l=$((t / 2)) s=$((t % 2))
    tmp=$res2/summary-L$l-S$s.csv.tmp
    if [[ -f $tmp && ! -f $res2/summary-L$l-S$s.csv ]] && (($(wc -l <"$tmp") >= 2)); then
      running=$t
    fi
  done < <(tasks_in "$job2")
  [[ -n $running ]] || sleep 0.1
done
scancel "${job2}_${running}"
pending=$(tasks_in "$job2" | awk -F'|' '$2 == "PENDING" {print $1}' | sort -n | tail -1)
[[ -n $pending ]] || fail "run 2: no pending task left to cancel"
scancel "${job2}_${pending}"
step "cancelled task $running (running, after its first point) and task $pending (pending)"

"${CS[@]}" status "$res2" --wait --timeout 400 --interval 1 && fail "run 2: status says done after cancellations"
"${CS[@]}" status "$res2" --format json >status2.json || true
"$PY" - status2.json "$running" "$pending" <<'PY' || fail "run 2: status does not show the cancelled tasks as failed"
import json, sys
tasks = {t["task"]: t for t in json.load(open(sys.argv[1]))[0]["tasks"]}
r, p = int(sys.argv[2]), int(sys.argv[3])
bad = [t for t in tasks.values() if (t["state"] == "failed") != (t["task"] in (r, p))]
assert not bad, bad
assert "exit 143" in tasks[r]["detail"], tasks[r]
assert "never started" in tasks[p]["detail"], tasks[p]
print("status: task", r, "->", tasks[r]["detail"], "| task", p, "->", tasks[p]["detail"])
PY
set +e
"${CS[@]}" collect "$res2" --format json >collect2.json
rc=$?
set -e
((rc == 4)) || fail "run 2: collect exit code $rc with two tasks cancelled (want 4: incomplete)"
"$PY" - collect2.json plan2.csv "$running" "$pending" "$res2" <<'PY' || fail "run 2: collect does not name exactly the missing pairs"
import csv, json, sys
rep = json.load(open(sys.argv[1]))[0]
n = sum(1 for r in csv.DictReader(open(sys.argv[2])) if r["point"] != "")
r, p, res = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
def points(task):  # slice of task: 2 slices per launch
    s = task % 2
    base, extra = divmod(n, 2)
    b = s * base + min(s, extra)
    return list(range(b, b + base + (1 if s < extra else 0)))
kept = {int(x["point"]) for x in csv.DictReader(open(f"{res}/summary-L{r // 2}-S{r % 2}.csv"))}
assert kept and kept < set(points(r)), f"the interrupted task kept {sorted(kept)} of {points(r)}"
want = sorted([(q, r // 2) for q in points(r) if q not in kept] + [(q, p // 2) for q in points(p)])
got = sorted(map(tuple, rep["missing"]))
assert got == want, (got, want)
assert sorted({m["task"] for m in rep["missing_by_task"]}) == sorted({r, p}), rep["missing_by_task"]
assert not rep["problems"], rep["problems"]
print(f"collect: missing {len(got)} pairs, exactly those of tasks {r} (kept {sorted(kept)}) and {p}")
PY

step "resubmit the missing tasks"
out=$("${CS[@]}" resubmit "$res2")
echo "$out"
job3=$(sed -n 's/.*as job \([0-9]*\) .*/\1/p' <<<"$out")
[[ -n $job3 ]] || fail "resubmit: no job id in: $out"
want_list=$(printf '%s\n' "$running" "$pending" | sort -n | paste -sd,)
grep -q "resubmitted tasks $want_list as job" <<<"$out" || fail "resubmit: want tasks $want_list"
"$PY" -c 'import json, sys; a = json.load(open(sys.argv[1]))["arrays"]["openmpi"]; assert a["jobs"] == sys.argv[2:], a' \
  "$WORK/run2/slurm-submission.json" "$job2" "$job3" || fail "run 2: DIR/slurm-submission.json does not list both jobs"
"${CS[@]}" status "$res2" --wait --timeout 400 --interval 1 || fail "run 2: not done after resubmission"
"${CS[@]}" collect "$res2" || fail "run 2: collect reports it incomplete after resubmission"
"${CHECK[@]}" "$res2" --plan plan2.csv --launches 2 --slices 2 --np 4 --reps 50 --job "$job2" \
  --job "$running=$job3" --job "$pending=$job3" || fail "run 2: results do not match the plan"
"$PY" - "$res2/meta-L$((running / 2))-S$((running % 2)).json" <<'PY' || fail "run 2: the interrupted task did not resume"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert len(runs) == 2 and runs[1]["resumed_points"] >= 1, runs
print(f"resume: the second run skipped {runs[1]['resumed_points']} finished point(s)")
PY
"${CS[@]}" resubmit "$res2" | grep -q "nothing to resubmit" || fail "resubmit of a complete run submitted something"

# ------------------------------------------------------------------ optional: a second library
if [[ -n ${COLLSLURM_E2E_MPICH_BUILD:-} ]]; then
  step "run 1 with MPICH ($COLLSLURM_E2E_MPICH_BUILD) into $WORK/run1/mpich"
  "${CS[@]}" submit "$REPO/configs/quick.yaml" --out "$WORK/run1" --mpi mpich --build-dir "$COLLSLURM_E2E_MPICH_BUILD" \
    --np 4 --overcommit --launches 2 --slices 3 "${SHRINK[@]}"
  "${CS[@]}" status "$WORK/run1" --wait --timeout 400 --interval 1 || fail "mpich: not every task is done"
  "${CS[@]}" collect "$WORK/run1" || fail "two libraries: collect reports them incomplete"
  "${CHECK[@]}" "$WORK/run1/mpich" --plan plan1.csv --launches 2 --slices 3 --np 4 --reps 3 || fail "mpich: results"
  "$REPO/analysis/analyze" compare "$WORK/run1/openmpi" "$WORK/run1/mpich" -o "$WORK/compare" ||
    [[ -f $WORK/compare/compare.csv ]] || fail "analysis/analyze compare failed"
fi
step "PASS"
