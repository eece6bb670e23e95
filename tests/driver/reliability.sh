#!/usr/bin/env bash
# Issue #17 end to end: every bad input of the table exits 2 with one line before any MPI work
# and writes nothing; a damaged results directory (truncation, deleted rows, a flipped byte)
# is re-measured by the resume and refused by the analysis.
source "$(dirname "$0")/lib.sh"
ANALYZE=$REPO/analysis/analyze

expect_error() {  # expect_error PATTERN collbench-args... (exit 2, exactly one collbench line)
  local pattern=$1; shift
  local rc=0
  "$@" >out.txt 2>err.txt || rc=$?
  ((rc == 2)) || { cat err.txt >&2; fail "exit code $rc, want 2: $*"; }
  grep -q -- "$pattern" err.txt || { cat err.txt >&2; fail "message lacks '$pattern'"; }
  (( $(grep -c '^collbench:' err.txt) == 1 )) || { cat err.txt >&2; fail "want exactly one collbench line: $*"; }
}

iso() { printf 'experiment: t\ncollective: neighbor-alltoall\nsizes: [1KiB]\nneighborhoods: ["%s"]\ndims: ["%s"]\ntiming: {reps: 3, warmup: 1}\n' "$1" "${2:-auto}" >"$3"; }
iso 'list:(-2147483648,0)' 4x1 f1.yaml;  expect_error 'more than 1073741824' run_bench f1.yaml --out bad
iso 'moore:d=2,r=1023' auto f3.yaml;     expect_error 'spans more than 1048576' run_bench f3.yaml --out bad
iso 'moore:d=2,r=1' 99999999999999999999x1 w1.yaml; expect_error 'dims\[0\]' run_bench w1.yaml --out bad
iso 'moore:d=s1,r=1' auto w8.yaml;       expect_error "d 's1' is not an integer" run_bench w8.yaml --out bad
printf 'experiment: t\ncollective: allgather\nsizes: [1TiB]\n' >w2.yaml
expect_error 'more than the budget of .* per rank' run_bench w2.yaml --out bad
printf 'experiment: t\ncollective: allgather\nsizes: [1KiB]\nsizes: [2KiB]\n' >f6.yaml
expect_error 'sizes is given twice' run_bench f6.yaml --out bad
# --get: no MPI, the same checks as a run.
printf 'experiment: t\ncollective: allgather\nsizes: ["0..1TiB +1"]\n' >f4.yaml
expect_error 'has more than 100000 sizes' timeout 10 "$COLLBENCH" f4.yaml --get sizes
expect_error '--get nosuchkey is not a known key' "$COLLBENCH" w2.yaml --get nosuchkey
expect_error 'spans more than 1048576' "$COLLBENCH" f3.yaml --get launches
expect_error 'is a directory' "$COLLBENCH" "$WORK" --get launches
expect_error 'want a launch number' "$COLLBENCH" w2.yaml --launch -1 --get launches
expect_error "--out '' is empty" run_bench w2.yaml --out ''
[[ ! -e bad && ! -e results ]] || fail "a configuration error wrote files"

# F2: a huge offset plans and runs like its remainder (and in well under a second of planning).
iso 'list:(10000000,0),(1,1)' 4x1 f2.yaml
run_bench f2.yaml --out f2 --quiet || fail "F2 run failed"

# F5: damaged files of a finished launch.
printf 'experiment: t\ncollective: allgather\nsizes: [1KiB, 2KiB, 4KiB]\nalgorithms: [native]\nlaunches: 1\ntiming: {reps: 3, warmup: 1}\n' >r.yaml
run_bench r.yaml --dry-run --format csv >plan.csv
run_bench r.yaml --out good --quiet || fail "first run"
damage() {  # damage NAME SED/PY-DESCRIPTION: copy good/ to NAME/ and damage it by $2
  rm -rf "$1" && cp -r good "$1"
  $PY -c "$2" "$1"
}
damage trunc 'import sys; p = sys.argv[1] + "/summary-L0.csv"; s = open(p).read().splitlines(True); open(p, "w").writelines(s[:-1])'
damage rows  'import sys; p = sys.argv[1] + "/raw-L0.csv"; s = open(p).read().splitlines(True); open(p, "w").writelines(s[:2] + s[3:])'
# the last digit of the last time (lines end in "<time_s>,<valid>\n"): the row still parses
damage flip  'import sys; p = sys.argv[1] + "/raw-L0.csv"; b = bytearray(open(p, "rb").read()); b[-4] = 48 + (b[-4] - 47) % 10; open(p, "wb").write(b)'
for d in trunc rows flip; do
  rc=0; "$ANALYZE" aggregate "$d" >/dev/null 2>err.txt || rc=$?
  ((rc == 2)) && grep -q "analyze: error: $d: .*points damaged or missing" err.txt || { cat err.txt >&2; fail "analysis of $d: exit $rc"; }
  run_bench r.yaml --out "$d" 2>err.txt || { cat err.txt >&2; fail "resume of $d"; }
  grep -q "collbench: warning: $d: .*damaged or missing, measured again" err.txt || { cat err.txt >&2; fail "resume of $d did not name the damage"; }
  grep -q 'already complete: nothing to do' err.txt && fail "resume of $d trusted damaged files"
  $CHECK "$d" --plan plan.csv --reps 3 --launches 1 >/dev/null || fail "$d after the resume"
  "$ANALYZE" aggregate "$d" >/dev/null || fail "analysis of $d after the resume"
done

# A directory of the previous contract version (good/ rewritten as version 2: no tail
# percentiles): collbench refuses to resume into it and names the migration; after
# `analyze migrate` the integrity records match again and the resume finds nothing to do.
rm -rf v2 && cp -r good v2
PYTHONPATH="$REPO/python" $PY - v2 <<'PY'
import csv, json, sys
from collrepro import contract as C
from collrepro.analysis.loading.integrity import file_integrity
d = sys.argv[1]
rows = list(csv.reader(open(f"{d}/summary-L0.csv")))
keep = [i for i, c in enumerate(rows[0]) if c in C.TABLE_COLUMNS_OF[2]["summary"]]
with open(f"{d}/summary-L0.csv", "w", newline="") as f:
    csv.writer(f, lineterminator="\n").writerows([[r[i] for i in keep] for r in rows])
meta = json.load(open(f"{d}/meta-L0.json"))
meta["contract_version"] = 2
meta["integrity"] = file_integrity(d, 0, None, 2)
json.dump(meta, open(f"{d}/meta-L0.json", "w"), indent=2)
PY
expect_error 'of results contract version 2, this collbench writes version' run_bench r.yaml --out v2
"$ANALYZE" migrate v2 >/dev/null || fail "analyze migrate v2"
run_bench r.yaml --out v2 2>err.txt || { cat err.txt >&2; fail "resume after the migration"; }
grep -q 'already complete: nothing to do' err.txt || { cat err.txt >&2; fail "the migrated directory was not trusted"; }
echo "PASS reliability (issue #17)"
