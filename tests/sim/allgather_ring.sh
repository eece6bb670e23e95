#!/usr/bin/env bash
# sim.allgather-ring (registered by tests/mpi/sim.cmake, LABELS sim): the simulated MPICH's
# MPI_Allgather for long messages is a ring over neighbouring ranks (bench/sim/allgather_choice.cpp):
# tests/sim/allgather_ring.yaml at 64 ranks on the crossbar, 1 and 16 processes per node, must
# validate (collbench exits 3 on a wrong byte) and cost about the same at both (check_ring.py).
#   tests/sim/allgather_ring.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
begin_sim_test sim.allgather-ring "$@"
for ppn in 1 16; do
  bench/sim/simrun --build-dir "$build" --platform configs/platforms/flat-crossbar.xml --np 64 --ppn "$ppn" \
    --fold 1GiB --hugepages no --out "$out/ppn$ppn" tests/sim/allgather_ring.yaml -- --quiet
done
/usr/bin/python3 tests/sim/check_ring.py "$out/ppn1" "$out/ppn16"
