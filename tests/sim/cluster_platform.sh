#!/usr/bin/env bash
# sim.cluster-platform (registered by tests/mpi/sim.cmake, LABELS sim): a platform of an emulated
# cluster written by `sim platform --from-cluster` (python/collrepro/sim/platforms/cluster_platform.py) from
# known `cluster` records (4 nodes at 100 Mbit/s, crc-n3 at 50 Mbit/s, a measured ratio of 0.95,
# 20 us) gives back in simulation the ping-pong those numbers predict (bandwidth within 3 %), and a 4-rank
# sweep of the inter-group algorithms runs on it (its hosts sit in the root zone, which simrun and
# collbench's node lookup must accept). Builds into BUILD_DIR (shared with sim.smoke).
#   tests/sim/cluster_platform.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
begin_sim_test sim.cluster-platform "$@"
/usr/bin/python3 tests/sim/check_cluster_platform.py make "$out/runs" "$out/cluster.xml"
bench/sim/simrun --build-dir "$build" --platform "$out/cluster.xml" --np 4 --ppn 1 --coll-selector ompi \
  --out "$out/sweep" configs/quick.yaml -- --quiet --set sizes=[1KiB,64KiB] --set groups.ratios=[1/1,3/1] \
  --set timing.reps=1 --set pair_mode=intracomm
/usr/bin/python3 tests/sim/check_cluster_platform.py check "$out/runs" "$out"
