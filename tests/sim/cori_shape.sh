#!/usr/bin/env bash
# sim.cori-shape (registered by tests/mpi/sim.cmake, LABELS sim): the adaptive Cori model
# (configs/platforms/cori-adaptive.xml) must keep the shape of the papers' contention-free model.
# Checks that the committed platform is what python/collrepro/cori_platform.py generates, builds
# the SimGrid SMPI variant into BUILD_DIR (shared with sim.smoke), simulates tests/sim/cori_shape.yaml
# (seed 000 FC, 64 ranks contiguous, 4 MiB, three p/q) on the flat crossbar and on cori-adaptive,
# then tests/sim/check_cori_shape.py compares root-gathering / halfduplex-fc per p/q (within 15%).
#   tests/sim/cori_shape.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=${1:?source dir}
build=${2:?build dir}
source "$(dirname "$0")/lib.sh"
start_sim_test sim.cori-shape "$src"
check_generated sim.cori-shape cori-adaptive
build_sim_variant "$build"
for platform in flat-crossbar cori-adaptive; do
  bench/sim/simrun --build-dir "$build" --platform "configs/platforms/$platform.xml" --np 64 --order block \
    --out "$out/$platform" tests/sim/cori_shape.yaml -- --quiet
done
/usr/bin/python3 tests/sim/check_cori_shape.py "$out/flat-crossbar" "$out/cori-adaptive"
