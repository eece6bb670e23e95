#!/usr/bin/env bash
# sim.fast-path (registered by tests/mpi/sim.cmake, LABELS sim): the simulation's fast path
# (folded buffers are never filled: bench/sim/fold_alloc.cpp; folded onto huge pages where
# bench/sim/hugepages could set them up, i.e. as root) gives the same simulated medians as the
# full path (simrun --fill-folded --hugepages no), on tests/sim/fast_path.yaml at 32 ranks on
# the adaptive Cori model, every buffer folded; and the fast path cut into two slices that run
# side by side (simrun --jobs 2) gives them again. Builds into BUILD_DIR (shared with sim.smoke).
#   tests/sim/fast_path.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
begin_sim_test sim.fast-path "$@"
[ "$(id -u)" != 0 ] || bench/sim/hugepages || echo "sim.fast-path: no huge pages; the fast path runs on 4 KiB pages"
run() {
  bench/sim/simrun --build-dir "$build" --platform configs/platforms/dragonfly-adaptive.xml --np 32 --fold 256KiB \
    "$@" tests/sim/fast_path.yaml -- --quiet
}
run --fill-folded --hugepages no --out "$out/full"
run --out "$out/fast"
run --jobs 2 --out "$out/sliced"
ls "$out/sliced"/summary-L0-S0.csv "$out/sliced"/summary-L0-S1.csv >/dev/null
/usr/bin/python3 tests/sim/check_same_medians.py "$out/full" "$out/fast" "$out/sliced"
