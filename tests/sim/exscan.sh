#!/usr/bin/env bash
# sim.exscan (registered by tests/mpi/sim.cmake, LABELS sim): the simulated MPI_Exscan runs MPICH's
# recursive doubling under the mpich selector and Open MPI 4.1's chain under ompi
# (bench/sim/exscan_choice.cpp). tests/sim/exscan.yaml at 64 ranks (groups of 50 and 14) on the
# crossbar under both selectors must validate (collbench exits 3 on a wrong byte: a wrong prefix
# misplaces a block) and give the phase costs check_exscan.py expects.
#   tests/sim/exscan.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
begin_sim_test sim.exscan "$@"
for selector in mpich ompi; do
  bench/sim/simrun --build-dir "$build" --platform configs/platforms/flat-crossbar.xml --np 64 \
    --coll-selector "$selector" --hugepages no --out "$out/$selector" tests/sim/exscan.yaml -- --quiet
done
/usr/bin/python3 tests/sim/check_exscan.py "$out/mpich" "$out/ompi"
