#!/usr/bin/env bash
# Exit codes: 2 with one clear line for configuration errors (before any measurement, no
# files written), 3 for a validation failure naming algorithm, point, rank and byte (never
# a timing row).
source "$(dirname "$0")/lib.sh"
CFG=$REPO/configs/quick.yaml

expect_exit() {  # expect_exit CODE PATTERN collbench-args...
  local code=$1 pattern=$2; shift 2
  local rc=0
  run_bench "$@" >out.txt 2>err.txt || rc=$?
  ((rc == code)) || { cat err.txt >&2; fail "exit code $rc, want $code: $*"; }
  grep -q -- "$pattern" err.txt || { cat err.txt >&2; fail "message lacks '$pattern'"; }
  local lines; lines=$(grep -c '^collbench:' err.txt)
  ((lines == 1)) || { cat err.txt >&2; fail "$lines collbench messages, want exactly one"; }
}

expect_exit 2 'config error: groups.ratios\[0\] = "25/7" needs a multiple of 32 processes, got 4 (use -n 32 or a ratio that divides 4)' \
  "$CFG" --out bad --set 'groups.ratios=[25/7]'
expect_exit 2 'config error: timing.rep is not a known key (did you mean timing.reps?)' "$CFG" --out bad --set timing.rep=5
expect_exit 2 'config error: sizes = "1KB..1MB x0"' "$CFG" --out bad --set 'sizes=1KB..1MB x0'
expect_exit 2 'config error: algorithms\[0\] = "nope" is not a registered allgather algorithm' "$CFG" --out bad --set 'algorithms=[nope]'
expect_exit 2 'usage error: --slice 2/2' "$CFG" --out bad --slice 2/2
expect_exit 2 'config error: cannot read' "$WORK/missing.yaml" --out bad
[[ ! -e bad ]] || fail "a configuration error wrote files"
[[ -n ${TEST_COLLBENCH:-} ]] || fail "TEST_COLLBENCH is not set: run this script through ctest (tests/mpi/driver.cmake)"
EXE=$TEST_COLLBENCH expect_exit 3 'validation failed: allgather/test-corrupt-byte at point 1 (p=2 q=2 ka=1KiB kb=1KiB size 1024 B, placement block): world rank' \
  "$CFG" --out broken --set 'groups.ratios=[1/1]' --set 'blocks=[1:1]' --set 'sizes=[1KiB]' --set 'algorithms=[native, test-corrupt-byte]' --set timing.reps=3
grep -q 'byte 3 of block 0, from group B rank 0' err.txt || fail "the message does not name the byte"
(( $(data_lines broken/raw-L0.csv) == 3 && $(data_lines broken/summary-L0.csv) == 1 )) || fail "rows written for the broken point"
grep -q native broken/summary-L0.csv || fail "the native point before it was not kept"
/usr/bin/python3 -c 'import json; m = json.load(open("broken/meta-L0.json")); assert not m["complete"] and "validation failed" in m["error"]'
echo "PASS exit codes"
