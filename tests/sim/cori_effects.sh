#!/usr/bin/env bash
# sim.cori-effects (registered by tests/mpi/sim.cmake, LABELS sim): the Cori model with effects
# (configs/platforms/cori-effects.xml) must differ from the flat crossbar where its shared NIC
# matters and agree where nothing it adds is crossed. Checks that the committed platforms (it and
# dragonfly-adaptive, its topology alone) are the generator's output
# (python/collrepro/sim/platforms/cori.py), builds the SimGrid SMPI variant
# into BUILD_DIR (shared with sim.smoke), simulates tests/sim/cori_effects.yaml (seed 000 FC, 4 MiB,
# three p/q) at 32 ranks x 8 per node on both platforms, then tests/sim/check_cori_effects.py.
#   tests/sim/cori_effects.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=${1:?source dir}
build=${2:?build dir}
source "$(dirname "$0")/lib.sh"
start_sim_test sim.cori-effects "$src"
check_generated sim.cori-effects cori-effects --effects
check_generated sim.cori-effects dragonfly-adaptive
build_sim_variant "$build"
for platform in flat-crossbar cori-effects; do
  bench/sim/simrun --build-dir "$build" --platform "configs/platforms/$platform.xml" --np 32 --ppn 8 --order block \
    --out "$out/$platform" tests/sim/cori_effects.yaml -- --quiet
done
/usr/bin/python3 tests/sim/check_cori_effects.py "$out/flat-crossbar" "$out/cori-effects"
