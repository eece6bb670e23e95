#!/usr/bin/env bash
# sim.node-memory (registered by tests/mpi/sim.cmake, LABELS sim): the Cori model bench/sim/paper
# uses by default (cori-memory: python/collrepro/sim/platforms/node_memory.py at its 16 GB/s) must
# differ from the flat crossbar where a node's processes share its memory (4 nodes x 8 cores,
# 4 MiB) and equal it where one process per node leaves the memory idle (32 x 1), and its results
# must count the 8 cores of a node as one node (bench/sim/node_of_core.cpp). Simulates
# tests/sim/cori_effects.yaml (seed 000 FC, 4 MiB, three p/q), then tests/sim/check_node_memory.py.
#   tests/sim/node_memory.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
begin_sim_test sim.node-memory "$@"
mem=$(PYTHONPATH=python /usr/bin/python3 -c 'from collrepro.sim.platforms import node_memory as m; print(m.CORI_MEM_GBPS)')
for shape in 4x8 32x1; do
  PYTHONPATH=python /usr/bin/python3 -m collrepro sim node-memory --nodes "${shape%x*}" --cores "${shape#*x}" \
    --mem-gbps "$mem" -o "$out/cori-memory-$shape.xml"
  bench/sim/simrun --build-dir "$build" --platform "$out/cori-memory-$shape.xml" --np 32 --ppn 1 \
    --out "$out/memory-$shape" tests/sim/cori_effects.yaml -- --quiet
  bench/sim/simrun --build-dir "$build" --platform configs/platforms/flat-crossbar.xml --np 32 --ppn "${shape#*x}" \
    --out "$out/crossbar-$shape" tests/sim/cori_effects.yaml -- --quiet
done
/usr/bin/python3 tests/sim/check_node_memory.py "$out"
