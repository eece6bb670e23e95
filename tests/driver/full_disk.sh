#!/usr/bin/env bash
# Issue #29: a full disk. A tmpfs mounted by this test (root only; exit 77 = skipped where mount
# is not permitted) holds the results; a filler file leaves collbench a budget of B pages, so
# that the disk fills up at the start (the first metadata write), in the middle of the sweep (a
# data row), on a resume while still full (the metadata again, with points on disk) and at the
# end (the final metadata, every point written). Each time: exit 5, exactly one error line
# naming the file and "No space left on device", no *.tmp.part left, no point lost. Then space
# is freed and the resume completes: check_results.py finds every point exactly once.
umount "${WORK:?}/mnt" 2>/dev/null || true  # a mount left by a killed earlier run (lib.sh empties WORK)
source "$(dirname "$0")/lib.sh"
NP=2
MNT=$WORK/mnt
mkdir -p "$MNT"
trap 'umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true' EXIT
if ! mount -t tmpfs -o size=512k,mode=0755 tmpfs "$MNT" 2>mount.err; then
  echo "SKIP: cannot mount a tmpfs ($(head -c 200 mount.err)): this test needs root and permission to mount"
  exit 77
fi

# Four points of 25 repetitions of the native Allgather: more than a page of raw rows per point.
CFG=$REPO/configs/quick.yaml
SETS=(--set "groups.ratios=[1/1]" --set "blocks=[1:1]" --set "algorithms=[native]"
      --set "sizes=[1KiB, 2KiB, 4KiB, 8KiB]" --set timing.reps=25 --set timing.warmup=1 --set validation=false)
run_bench "$CFG" --dry-run --format csv "${SETS[@]}" >plan.csv
TOTAL=$(plan_points plan.csv)

# The reference: the same launch on an ordinary disk, for its files' sizes in pages.
run_bench "$CFG" --out ref --quiet "${SETS[@]}" || fail "the reference run failed"
pages() { echo $(( ($(stat -c %s "$1") + 4095) / 4096 )); }
M=$(pages ref/meta-L0.json) R=$(pages ref/raw-L0.csv) S=$(pages ref/summary-L0.csv)
note "reference: metadata $M, raw $R, summary $S page(s); $TOTAL points"
((R >= 4)) || fail "the raw rows take $R page(s): too few for a failure in the middle of the sweep"

OUT=$MNT/out
budget() {  # budget B: collbench may use B pages of the tmpfs in all (what out/ holds included)
  rm -f "$MNT/fill"
  local size; size=$(df -B4096 --output=size "$MNT" | tail -1)
  dd if=/dev/zero of="$MNT/fill" bs=4096 count=$((size - $1)) status=none 2>/dev/null || true
}
points_in() { [[ -f $1 ]] && echo $(( $(wc -l <"$1") - 1 )) || echo 0; }
attempt() {  # one run into $OUT: rc, err.txt
  rc=0
  run_bench "$CFG" --out "$OUT" --quiet "${SETS[@]}" >/dev/null 2>err.txt || rc=$?
}
faults=0
expect_full() {  # expect_full FILE-REGEX WHAT: exit 5, one line naming the file, no .tmp.part
  ((rc == 5)) || { cat err.txt >&2; fail "$2: exit code $rc, want 5"; }
  (( $(grep -c '^collbench:' err.txt) == 1 && $(grep -c 'No space left on device' err.txt) == 1 )) ||
    { cat err.txt >&2; fail "$2: want exactly one collbench line and one 'No space left on device'"; }
  grep -Eq "^collbench: cannot write $OUT/$1: No space left on device \(free space and re-run: finished points are kept\)\$" err.txt ||
    { cat err.txt >&2; fail "$2: the line does not name $1, the reason and the fix"; }
  [[ -z $(find "$MNT" -name '*.part') ]] || { ls -la "$OUT" >&2; fail "$2: a *.tmp.part file is left"; }
  ((++faults))
  note "$2: exit 5, $(points_in "$OUT/summary-L0.csv.tmp") point(s) kept: $(grep "^collbench:" err.txt | cut -c1-160)"
}

# 1. At the start: no room for the first metadata; nothing is left behind.
budget 0
attempt
expect_full 'meta-L0\.json\.tmp\.part' "full at the start"
[[ -z $(ls -A "$OUT") ]] || { ls -la "$OUT" >&2; fail "files left after a failure at the start"; }

# 2. In the middle: the metadata and a few points fit.
budget $((M + 3))
attempt
expect_full '(raw|summary)-L0\.csv\.tmp' "full in the middle"
kept=$(points_in "$OUT/summary-L0.csv.tmp")
((kept >= 1 && kept < TOTAL)) || fail "full in the middle kept $kept of $TOTAL points"
cp "$OUT/raw-L0.csv.tmp" raw.before && cp "$OUT/summary-L0.csv.tmp" summary.before

# 3. The resume on a disk still full: refused at the metadata, the points on disk untouched.
attempt
expect_full 'meta-L0\.json\.tmp\.part' "resume while still full"
cmp -s raw.before "$OUT/raw-L0.csv.tmp" && cmp -s summary.before "$OUT/summary-L0.csv.tmp" ||
  fail "the refused resume changed the .tmp files"

# 4. At the end: a budget that fits the metadata and every point but not the final metadata
# (written aside while the last one still exists). The metadata may cross a page boundary as its
# run list grows: then the disk fills at the last points instead, and one more page is tried.
m=$(( ($(stat -c %s "$OUT/meta-L0.json.tmp") + 400 + 4095) / 4096 ))
for ((b = m + R + S; ; b++)); do
  ((b <= m + R + S + 2)) || fail "the disk never filled at the final metadata"
  budget "$b"
  attempt
  ((rc != 0)) || fail "budget $b: complete, want a full disk at the final metadata"
  (( $(points_in "$OUT/summary-L0.csv.tmp") < TOTAL )) || break
  expect_full '(meta-L0\.json\.tmp\.part|(raw|summary)-L0\.csv\.tmp)' "full at the last points (budget $b)"
done
expect_full 'meta-L0\.json\.tmp\.part' "full at the end (budget $b, every point written)"

# 5. Space freed: the resume completes, with every point exactly once.
rm -f "$MNT/fill"
attempt
((rc == 0)) || { cat err.txt >&2; fail "the resume after freeing space: exit $rc"; }
[[ -z $(find "$MNT" -name '*.tmp' -o -name '*.part') ]] || { ls -la "$OUT" >&2; fail "temporary files after the complete run"; }
$CHECK "$OUT" --plan plan.csv --reps 25 --launches 1 || fail "the resumed results lost or duplicated rows"
echo "PASS full disk ($faults faults injected: exit 5, one line, no .tmp.part; nothing lost or duplicated)"
