#!/usr/bin/env bash
# sim.wide (registered by tests/mpi/sim.cmake, LABELS sim): transfers of more than 2 GiB in the
# simulation (seed 000 at 1024 x 8 and 4 MiB). Part 1: the shim's scatter + ring broadcast gives
# SimGrid's simulated times and the right bytes (tests/sim/wide.yaml, 32 ranks, 4 per node, run
# with and without COLLREPRO_SIM_WIDE_BCAST_FROM). Part 2: 3 GiB gathers and broadcasts run and
# cost 8 times what 384 MiB ones do (tests/sim/wide_big.yaml, 8 ranks). check_wide.py checks both.
#   tests/sim/wide.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
begin_sim_test sim.wide "$@"
run() {
  bench/sim/simrun --build-dir "$build" --hugepages no "$@" -- --quiet
}
run --platform configs/platforms/dragonfly-adaptive.xml --np 32 --ppn 4 --fold 1GiB --out "$out/simgrid" tests/sim/wide.yaml
COLLREPRO_SIM_WIDE_BCAST_FROM=12288 \
  run --platform configs/platforms/dragonfly-adaptive.xml --np 32 --ppn 4 --fold 1GiB --out "$out/shim" tests/sim/wide.yaml
run --platform configs/platforms/flat-crossbar.xml --np 8 --fold 8MiB --out "$out/big" tests/sim/wide_big.yaml
/usr/bin/python3 tests/sim/check_wide.py "$out/simgrid" "$out/shim" "$out/big"
