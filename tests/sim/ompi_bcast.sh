#!/usr/bin/env bash
# sim.ompi-bcast (registered by tests/mpi/sim.cmake, LABELS sim): under --coll-selector ompi the
# simulated MPI_Bcast is Open MPI 4.1.4's choice, whole messages along its trees
# (bench/sim/ompi_bcast.hpp). tests/sim/ompi_bcast.yaml must validate (collbench exits 3 on a
# wrong byte) with every tree the decision names, and tests/sim/ompi_bcast_chain.yaml must show
# the chain's cost (check_ompi_bcast.py), both on the crossbar.
#   tests/sim/ompi_bcast.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
begin_sim_test sim.ompi-bcast "$@"
bench/sim/simrun --build-dir "$build" --platform configs/platforms/flat-crossbar.xml --np 16 \
  --coll-selector ompi --hugepages no --out "$out/trees" tests/sim/ompi_bcast.yaml -- --quiet
bench/sim/simrun --build-dir "$build" --platform configs/platforms/flat-crossbar.xml --np 14 \
  --coll-selector ompi --hugepages no --out "$out/chain" tests/sim/ompi_bcast_chain.yaml -- --quiet
/usr/bin/python3 tests/sim/check_ompi_bcast.py "$out/trees" "$out/chain"
