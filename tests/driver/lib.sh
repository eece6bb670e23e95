# Helpers of the driver script tests (sourced). The test's environment gives:
#   COLLBENCH       the collbench executable       MPIEXEC        this build's launcher
#   MPIEXEC_NP      its -n flag                    MPIEXEC_EXTRA  extra launcher flags
#   REPO            the source tree                WORK           a scratch directory
set -euo pipefail
: "${COLLBENCH:?}" "${MPIEXEC:?}" "${MPIEXEC_NP:=-n}" "${REPO:?}" "${WORK:?}"
MPIEXEC_EXTRA=${MPIEXEC_EXTRA:-}
PY=/usr/bin/python3
CHECK="$PY $REPO/tests/driver/check_results.py"
NP=${NP:-4}
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "-- $*" >&2; }

# run_bench [collbench args...]: one launch with NP processes (foreground).
run_bench() { "$MPIEXEC" "$MPIEXEC_NP" "$NP" $MPIEXEC_EXTRA "${EXE:-$COLLBENCH}" "$@"; }

# All descendants of a pid named like the benchmark executable (the MPI ranks; under
# MPICH's hydra they are grandchildren of mpiexec).
rank_pids() {
  local name; name=$(basename "${EXE:-$COLLBENCH}")
  local todo=("$1") out=() p c
  while ((${#todo[@]})); do
    p=${todo[0]}; todo=("${todo[@]:1}")
    for c in $(pgrep -P "$p" || true); do
      todo+=("$c")
      [[ $(cat /proc/$c/comm 2>/dev/null) == "${name:0:15}" ]] && out+=("$c")
    done
  done
  echo "${out[@]}"
}

# data_lines FILE: lines after the header (0 when absent).
data_lines() { [[ -f $1 ]] && echo $(( $(wc -l <"$1") - 1 )) || echo 0; }

# wait_for_points FILE N TIMEOUT_S: until FILE has N data lines.
wait_for_points() {
  local deadline=$((SECONDS + $3))
  until (( $(data_lines "$1") >= $2 )); do
    ((SECONDS < deadline)) || fail "timed out waiting for $2 point(s) in $1"
    sleep 0.02
  done
}

# plan_points PLAN.csv: the number of supported points of a --dry-run --format csv plan.
plan_points() { $PY -c 'import csv, sys; print(sum(r["supported"] == "1" for r in csv.DictReader(open(sys.argv[1]))))' "$1"; }

# The interruptible sweep of resume_kill.sh and sigterm.sh: quick.yaml reduced to six points of
# test-slow (collbench_test's native Allgather + 40 ms sleep, so >= 0.5 s per point: after the
# second point the sweep still runs for >= 2 s, whatever the machine's speed).
INTERRUPT_CFG=$REPO/configs/quick.yaml
INTERRUPT_SETS=(--set "groups.ratios=[1/1]" --set "blocks=[1:1]" --set "algorithms=[test-slow]"
                --set "sizes=[1KiB, 2KiB, 4KiB, 8KiB, 16KiB, 32KiB]" --set timing.reps=12 --set timing.warmup=1)

# start_interruptible_sweep: switches EXE to collbench_test, writes plan.csv, starts the sweep
# into out/ in the background (its launcher's pid in $launcher) and returns once 2 points are
# finished.
start_interruptible_sweep() {
  EXE=${TEST_COLLBENCH:?the interrupt tests need collbench_test (tests/driver/test_collbench.cpp)}
  run_bench "$INTERRUPT_CFG" --dry-run --format csv "${INTERRUPT_SETS[@]}" >plan.csv
  run_bench "$INTERRUPT_CFG" --out out --quiet "${INTERRUPT_SETS[@]}" &
  launcher=$!
  wait_for_points out/summary-L0.csv.tmp 2 90
}

# resume_sweep: re-runs the sweep into out/ in the foreground; it must complete the launch.
resume_sweep() {
  run_bench "$INTERRUPT_CFG" --out out --quiet "${INTERRUPT_SETS[@]}" || fail "resume exit code $?"
  $CHECK out --plan plan.csv --reps 12 --launches 1
}
