#!/usr/bin/env bash
# sim.hugepages-shared (registered by tests/mpi/sim.cmake, LABELS sim; root): simulations that
# share the machine's huge pages. Each simulation running folds its buffers onto one huge page;
# simrun claims one per --jobs under a machine-wide lock (python/collrepro/sim/running/run.py,
# HugepageClaim), so two runs side by side never both count the same free page.
#   1. two `simrun --jobs 2` side by side on huge pages: both pass, and their medians equal;
#   2. another process holds every free page but three (the race the issue met: SMPI aborted with
#      "Could not map folded virtual memory"): two `simrun --jobs 2` side by side both pass, the
#      one that finds too few pages says so and runs on 4 KiB pages, and the medians equal (1).
#   tests/sim/hugepages_shared.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: sim.hugepages-shared needs root (bench/sim/hugepages sets the pages up)"; exit 77; }
begin_sim_test sim.hugepages-shared "$@"
bench/sim/hugepages || { echo "SKIP: sim.hugepages-shared: the kernel gave no huge pages"; exit 77; }
run() {  # run NAME: one simulation of 2 slices side by side, its stderr in $out/NAME.err
  bench/sim/simrun --build-dir "$build" --platform configs/platforms/dragonfly-adaptive.xml --np 32 --fold 256KiB \
    --jobs 2 --out "$out/$1" tests/sim/fast_path.yaml -- --quiet --set 'sizes=[256KiB]' 2>"$out/$1.err"
}
side_by_side() {  # side_by_side A B: both runs at once; both must pass
  local pa pb ca=0 cb=0
  run "$1" & pa=$!
  run "$2" & pb=$!
  wait "$pa" || ca=$?
  wait "$pb" || cb=$?
  [ "$ca" = 0 ] && [ "$cb" = 0 ] || { cat "$out/$1.err" "$out/$2.err" >&2; echo "FAIL: side by side: exit $ca and $cb" >&2; exit 1; }
}

echo "1. two simulations side by side on huge pages"
side_by_side a b
grep -h "folded buffers" "$out/a.err" "$out/b.err"
grep -q "on huge pages" "$out/a.err" && grep -q "on huge pages" "$out/b.err" ||
  { echo "FAIL: with free pages for both, a run did not fold onto huge pages" >&2; exit 1; }

echo "2. another process holds every free huge page but three"
free=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
rsvd=$(awk '/^HugePages_Rsvd:/ {print $2}' /proc/meminfo)
hold=$((free - rsvd - 3))
[ "$hold" -ge 0 ] || { echo "SKIP: fewer than 3 free huge pages"; exit 77; }
mount=$(awk '$3 == "hugetlbfs" && $4 !~ /pagesize=1024M/ {print $2; exit}' /proc/mounts)
/usr/bin/python3 - "$mount" "$hold" "$out/held" <<'PY' &
import mmap, os, sys, time
mount, pages, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3]
size = max(pages, 1) * (2 << 20)
fd = os.open(os.path.join(mount, f"collrepro-test-hold-{os.getpid()}"), os.O_CREAT | os.O_RDWR, 0o600)
os.unlink(os.path.join(mount, f"collrepro-test-hold-{os.getpid()}"))
if pages:
    os.ftruncate(fd, size)
    m = mmap.mmap(fd, size, mmap.MAP_SHARED)
    for i in range(pages):
        m[i * (2 << 20)] = 1  # fault every page in: no longer free
open(ready, "w").close()
time.sleep(600)
PY
holder=$!
trap 'kill $holder 2>/dev/null || true; rm -rf "$out"' EXIT
for _ in $(seq 100); do [ -e "$out/held" ] && break; sleep 0.1; done
[ -e "$out/held" ] || { echo "FAIL: the holder never took its pages" >&2; exit 1; }
grep -E '^HugePages_(Free|Rsvd)' /proc/meminfo | tr '\n' ' '; echo
side_by_side c d
grep -h "folded buffers" "$out/c.err" "$out/d.err"
grep -q "4 KiB pages" "$out/c.err" "$out/d.err" ||
  { echo "FAIL: with 3 free pages for 4 simulations, neither run fell back to 4 KiB pages" >&2; exit 1; }
kill "$holder" 2>/dev/null || true
/usr/bin/python3 tests/sim/check_same_medians.py --alike "$out/a" "$out/b" "$out/c" "$out/d"
echo "sim.hugepages-shared: passed"
