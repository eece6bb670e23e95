#!/usr/bin/env bash
# sim.node-memory-routes (registered by tests/mpi/sim.cmake, LABELS sim): cori-memory routed
# through one switch (python/collrepro/sim/platforms/node_memory.py --routes switch, the default: two
# routes per node) must give the medians of the former file that routes every node pair
# (--routes pairs) within 1 %, at 8 nodes x 4 cores on tests/sim/node_memory_routes.yaml (seed 000's
# algorithms, three p/q, three sizes); then tests/sim/check_node_memory_routes.py.
#   tests/sim/node_memory_routes.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
begin_sim_test sim.node-memory-routes "$@"
mem=$(PYTHONPATH=python /usr/bin/python3 -c 'from collrepro.sim.platforms import node_memory as m; print(m.CORI_MEM_GBPS)')
for routes in switch pairs; do
  PYTHONPATH=python /usr/bin/python3 -m collrepro sim node-memory --nodes 8 --cores 4 --mem-gbps "$mem" \
    --routes "$routes" -o "$out/cori-memory-$routes.xml"
  bench/sim/simrun --build-dir "$build" --platform "$out/cori-memory-$routes.xml" --np 32 --ppn 1 \
    --out "$out/$routes" tests/sim/node_memory_routes.yaml -- --quiet
done
/usr/bin/python3 tests/sim/check_node_memory_routes.py "$out/switch" "$out/pairs"
