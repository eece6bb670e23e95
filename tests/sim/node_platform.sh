#!/usr/bin/env bash
# sim.node-platform (registered by tests/mpi/sim.cmake, LABELS sim): a platform derived by
# python/collrepro/sim/platforms/platform.py from a known ping-pong (two regimes: 1.5 us + 5 GB/s up to
# 64 KiB, 6 us + 9 GB/s beyond), known per-call costs and a known concurrent ping-pong (4 ranks:
# every pair at once against one pair; --shared-size) gives them back in simulation (a 2-rank
# launch's metadata under the ompi selector, whose broadcast of nothing once divided by zero on 2
# processes), and a validated 4-rank sweep runs under both collective selectors
# (simrun --coll-selector ompi leaves every choice to SimGrid's Open MPI selector: the metadata
# says so). Builds into BUILD_DIR (shared with sim.smoke).
#   tests/sim/node_platform.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
begin_sim_test sim.node-platform "$@"
/usr/bin/python3 tests/sim/check_node_platform.py make "$out/measured" "$out/node.xml"
# The ping-pong under the ompi selector on purpose: its pipeline broadcast divided by zero on the
# empty broadcasts of a 2-rank launch until the simulation variant returned those at once
# (bench/sim/bcast_choice.cpp).
bench/sim/simrun --build-dir "$build" --platform "$out/node.xml" --coll-selector ompi --np 2 --out "$out/pp" \
  configs/quick.yaml -- --quiet --set sizes=[1KiB] --set groups.ratios=[1/1] --set blocks=[1:0] \
  --set timing.reps=1 --set pair_mode=intracomm
for sel in ompi mpich; do
  bench/sim/simrun --build-dir "$build" --platform "$out/node.xml" --coll-selector $sel --np 4 --out "$out/sweep-$sel" \
    configs/quick.yaml -- --quiet --set sizes=[1KiB,64KiB] --set groups.ratios=[1/1] --set timing.reps=1 \
    --set pair_mode=intracomm
done
# every pair of 4 ranks at once on the platform whose backbone is the 1 MiB concurrent ping-pong's
bench/sim/simrun --build-dir "$build" --platform "$out/node-1mib.xml" --np 4 --out "$out/shared-1mib" \
  configs/quick.yaml -- --quiet --set sizes=[1KiB] --set groups.ratios=[1/1] --set blocks=[1:0] \
  --set timing.reps=1 --set pair_mode=intracomm
/usr/bin/python3 tests/sim/check_node_platform.py check "$out/measured" "$out"
