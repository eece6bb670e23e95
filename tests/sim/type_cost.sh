#!/usr/bin/env bash
# sim.type-cost (registered by tests/mpi/sim.cmake, LABELS sim): simrun --type-cost charges each
# side of a non-contiguous message what it says (bench/sim/typecost.cpp), and nothing without it.
# collbench's own `typecosts` measurement (a struct message against the same bytes contiguous)
# runs in the simulation too, so its extra one-way time must be twice A + B * min(bytes, UPTO)
# with the option and 0 without (check_type_cost.py).
#   tests/sim/type_cost.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
begin_sim_test sim.type-cost "$@"
args=(--quiet --set 'sizes=[1KiB]' --set 'groups.ratios=[1/1]' --set 'blocks=[1:1]'
      --set 'algorithms=[fullduplex-allgather]' --set pair_mode=intracomm)
bench/sim/simrun --build-dir "$build" --platform configs/platforms/flat-crossbar.xml --np 2 --hugepages no \
  --type-cost 3e-7,7e-10,1024 --out "$out/charged" configs/quick.yaml -- "${args[@]}"
bench/sim/simrun --build-dir "$build" --platform configs/platforms/flat-crossbar.xml --np 2 --hugepages no \
  --out "$out/free" configs/quick.yaml -- "${args[@]}"
/usr/bin/python3 tests/sim/check_type_cost.py "$out/charged" "$out/free" 3e-7,7e-10,1024
