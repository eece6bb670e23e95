#!/usr/bin/env bash
# The overlap measurement of nonblocking calls (timing.overlap; bench/README.md, "Call forms"), on
# calls whose overlap is known: collbench_test's test-overlap-full, whose 200 ms "transfer" runs
# from its start (a rank computing after the start finds it spent: near 100 %), and
# test-overlap-none, whose 200 ms run only from its wait (near 0 %). Two ranks, one per core on
# this machine. The verdicts compare medians of the ranks' own clocks with a wide margin
# (> 60 % and < 20 %), and the transfer is long beside what a loaded machine adds to a call: a
# scheduler tick of 8 ms in every call beside two busy loops, 45 to 70 ms beside other MPICH
# tests whose ranks never yield (with a 40 ms transfer those gave 83 % and 0 %, and 50 % and
# 21 %: the second failed). With 200 ms: quiet 100 % and 0 %; beside two busy loops 94 % and 0 %
# (Open MPI), 100 % and 0 % (MPICH); beside the MPICH correctness tests 0-1 % for the second.
# So they hold beside other CPU-bound work. Also checked:
#   - every nonblocking point has overlap_pct in [0, 100] and positive overlap_pure_s and
#     overlap_compute_s (the real algorithms too: fullduplex-allgather, native), the other forms none;
#   - timing.overlap: false leaves the columns empty; a value that is not a boolean is refused
#     (exit 2, one line naming timing.overlap);
#   - analyze report's call-form table carries the overlap.
source "$(dirname "$0")/lib.sh"
NP=2
EXE=${TEST_COLLBENCH:?the overlap check needs collbench_test (tests/driver/test_collbench.cpp)}
ANALYZE=$REPO/analysis/analyze
cat >cfg.yaml <<'YAML'
experiment: overlap-check
description: the overlap measurement on calls of known overlap (tests/driver/overlap.sh)
collective: allgather
groups: {ratios: ["1/1"]}
blocks: ["1:1"]
sizes: [4KiB]
timing: {sync: barrier, clock: monotonic, warmup: 1, reps: 5}
launches: 1
settings:
  - {name: known, algorithms: [test-overlap-full, test-overlap-none], call: [nonblocking]}
  - {name: real, algorithms: [fullduplex-allgather, native], call: [blocking, nonblocking]}
YAML

run_bench cfg.yaml --out out --quiet || fail "exit code $?"
$PY - <<'PY'
import csv, math
rows = list(csv.DictReader(open("out/summary-L0.csv")))
columns = ("overlap_pct", "overlap_pure_s", "overlap_compute_s")
pct = {}
for r in rows:
    where = f"point {r['point']} ({r['algorithm']}, {r['call']})"
    if r["call"] != "nonblocking":
        assert all(r[c] == "" for c in columns), where + ": overlap columns of a call that is not nonblocking"
        continue
    values = {c: float(r[c]) for c in columns}
    assert 0 <= values["overlap_pct"] <= 100 and values["overlap_pure_s"] > 0 and values["overlap_compute_s"] > 0, \
        (where, values)
    pct[r["algorithm"]] = values["overlap_pct"]
    print(f"{where}: overlap {values['overlap_pct']:.1f} % (pure {values['overlap_pure_s'] * 1e6:.0f} us, "
          f"compute {values['overlap_compute_s'] * 1e6:.0f} us)")
assert set(pct) >= {"test-overlap-full", "test-overlap-none", "fullduplex-allgather"}, sorted(pct)
assert pct["test-overlap-full"] > 60, f"a call that progresses alone measured {pct['test-overlap-full']:.1f} % overlap"
assert pct["test-overlap-none"] < 20, f"a call that moves only in its wait measured {pct['test-overlap-none']:.1f} % overlap"
PY

"$ANALYZE" report out -o report >/dev/null || fail "analyze report"
$PY - <<'PY'
import csv
rows = {r["algorithm"]: r for r in csv.DictReader(open("report/callforms.csv"))}
assert float(rows["test-overlap-full"]["overlap_pct"]) > 60, rows["test-overlap-full"]
assert "| overlap |" in open("report/report.md").read()
PY

run_bench cfg.yaml --out off --quiet --set timing.overlap=false --set "settings[0].algorithms=[test-overlap-full]" \
  --set timing.reps=2 || fail "timing.overlap=false: exit code $?"
$PY -c '
import csv
rows = list(csv.DictReader(open("off/summary-L0.csv")))
assert rows and all(r["overlap_pct"] == "" for r in rows), "timing.overlap: false measured overlap"'

set +e
msg=$(run_bench cfg.yaml --out bad --quiet --set timing.overlap=sometimes 2>&1); rc=$?
set -e
[[ $rc == 2 ]] || fail "timing.overlap=sometimes: exit $rc (want 2): $msg"
grep -q "timing.overlap" <<<"$msg" || fail "the refusal does not name timing.overlap: $msg"
[[ ! -e bad/summary-L0.csv ]] || fail "a refused configuration wrote results"
echo "overlap: ok"
