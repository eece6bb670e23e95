#!/usr/bin/env bash
# sim.shared-backbone (registered by tests/mpi/sim.cmake, LABELS sim): `collrepro-py sim validate
# run --shared` on real runs whose metadata hold a known concurrent ping-pong (the committed
# quick-np8 Open MPI runs of results/node16/, with every pair of 8 made 3 times slower than one
# pair at 1 MiB and as fast up to 64 KiB): each size is simulated on its own platform, the sizes
# where the node showed no slow-down come back as the plain simulation's medians, and 1 MiB, where
# it did, comes back slower (check_shared_backbone.py).
#   tests/sim/shared_backbone.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
begin_sim_test sim.shared-backbone "$@"
mkdir -p "$out/real"
tar xJf results/node16/runs.tar.xz -C "$out/real" ./quick-np8/openmpi
/usr/bin/python3 tests/sim/check_shared_backbone.py "$out/real" "$out/v" "$build"
