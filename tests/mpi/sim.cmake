# The SimGrid SMPI simulation variant (tracker issue 7): sim.smoke builds it with the `smpi`
# preset (smpicxx) into <this build>/sim-variant (or takes the variant of the same sources from
# the per-user cache, outside the clone: tests/sim/lib.sh) and runs a small simulated sweep twice,
# checking determinism and that the proposed algorithm beats root gathering (tests/sim/).
# The simulation does not launch the build's MPI library: registered in the first build only
# (COLLREPRO_LIBRARY_FREE_TESTS). Needs libsimgrid-dev (.ci/extra-packages).
if(NOT COLLREPRO_LIBRARY_FREE_TESTS)
  return()
endif()
add_test(NAME sim.smoke
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/smoke.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
# COST: ctest starts the longest tests first (a fresh build tree has no timing history).
set_tests_properties(sim.smoke PROPERTIES LABELS "sim" TIMEOUT 3600 COST 300)

# The sim.* tests below build into the same tree as sim.smoke, so none runs beside another
# (RESOURCE_LOCK).
set_tests_properties(sim.smoke PROPERTIES RESOURCE_LOCK sim-variant)

# sim.cori-effects: the Cori model with effects differs from the crossbar where 8 processes share
# a node's NIC and agrees on intra-node ping-pongs (tests/sim/cori_effects.sh; 32 ranks, ~6 s after the build).
add_test(NAME sim.cori-effects
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/cori_effects.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
set_tests_properties(sim.cori-effects PROPERTIES LABELS "sim" TIMEOUT 1200 COST 30 RESOURCE_LOCK sim-variant)

# sim.fast-path: skipping the fills of folded buffers (the simulation's fast path) changes no
# simulated median (tests/sim/fast_path.sh: 32 ranks, full path against fast path).
add_test(NAME sim.fast-path
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/fast_path.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
set_tests_properties(sim.fast-path PROPERTIES LABELS "sim" TIMEOUT 1200 COST 60 RESOURCE_LOCK sim-variant)

# sim.allgather-ring: the simulated MPI_Allgather's long-message case is MPICH's ring, which
# costs about the same with 16 processes per node as with one (tests/sim/allgather_ring.sh).
add_test(NAME sim.allgather-ring
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/allgather_ring.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
set_tests_properties(sim.allgather-ring PROPERTIES LABELS "sim" TIMEOUT 1200 COST 30 RESOURCE_LOCK sim-variant)

# sim.exscan: the simulated MPI_Exscan is MPICH's recursive doubling under the mpich selector and
# Open MPI's chain under ompi, and fullduplex-allgatherv validates under both (tests/sim/exscan.sh).
add_test(NAME sim.exscan
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/exscan.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
set_tests_properties(sim.exscan PROPERTIES LABELS "sim" TIMEOUT 1200 COST 20 RESOURCE_LOCK sim-variant)

# sim.ompi-bcast: under the ompi selector the simulated MPI_Bcast is Open MPI 4.1.4's choice, whole
# messages along its trees: every tree validates, and the chain costs its hops (tests/sim/ompi_bcast.sh).
add_test(NAME sim.ompi-bcast
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/ompi_bcast.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
set_tests_properties(sim.ompi-bcast PROPERTIES LABELS "sim" TIMEOUT 1200 COST 10 RESOURCE_LOCK sim-variant)

# sim.wide: transfers of more than 2 GiB in the simulation (seed 000 at 1024 x 8, 4 MiB): the shim's
# broadcast gives SimGrid's times and bytes, and 3 GiB transfers cost per byte what smaller ones do
# (tests/sim/wide.sh).
add_test(NAME sim.wide
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/wide.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
set_tests_properties(sim.wide PROPERTIES LABELS "sim" TIMEOUT 1200 COST 30 RESOURCE_LOCK sim-variant)

# sim.node-platform: a single-node platform derived from a known ping-pong gives it back in
# simulation, and sweeps run under SimGrid's ompi and mpich selectors (tests/sim/node_platform.sh).
add_test(NAME sim.node-platform
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/node_platform.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
set_tests_properties(sim.node-platform PROPERTIES LABELS "sim" TIMEOUT 1200 COST 20 RESOURCE_LOCK sim-variant)

# sim.node-memory: the default Cori model (cori-memory) differs from the crossbar where a node's
# processes share its memory, equals it at one process per node, and its results count a node's
# cores as one node (tests/sim/node_memory.sh; four 32-rank simulations, seconds after the build).
add_test(NAME sim.node-memory
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/node_memory.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
set_tests_properties(sim.node-memory PROPERTIES LABELS "sim" TIMEOUT 1200 COST 20 RESOURCE_LOCK sim-variant)

# sim.node-memory-routes: cori-memory routed through one switch (two routes per node) gives the
# medians of the former file with a route per node pair, within 1 % (tests/sim/node_memory_routes.sh;
# two 32-rank simulations of 36 points, seconds after the build).
add_test(NAME sim.node-memory-routes
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/node_memory_routes.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
set_tests_properties(sim.node-memory-routes PROPERTIES LABELS "sim" TIMEOUT 1200 COST 20 RESOURCE_LOCK sim-variant)

# sim.cluster-platform: an emulated cluster's platform (sim platform --from-cluster) gives back the
# link its `cluster` records describe, and a 4-rank sweep runs on it (tests/sim/cluster_platform.sh).
add_test(NAME sim.cluster-platform
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/cluster_platform.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
set_tests_properties(sim.cluster-platform PROPERTIES LABELS "sim" TIMEOUT 1200 COST 10 RESOURCE_LOCK sim-variant)

# sim.type-cost: simrun --type-cost charges each side of a non-contiguous message what it says, and
# nothing without it (tests/sim/type_cost.sh).
add_test(NAME sim.type-cost
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/type_cost.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
set_tests_properties(sim.type-cost PROPERTIES LABELS "sim" TIMEOUT 1200 COST 5 RESOURCE_LOCK sim-variant)

# sim.shared-backbone: sim validate run --shared simulates each size on the platform whose backbone
# is the node's concurrent ping-pong at that size (tests/sim/shared_backbone.sh).
# sim.hugepages-shared: two simulations side by side on huge pages, with and without another
# process holding most of them: both pass, and the one short of pages says so (tests/sim/hugepages_shared.sh; root).
add_test(NAME sim.hugepages-shared
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/hugepages_shared.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
set_tests_properties(sim.hugepages-shared PROPERTIES LABELS "sim" TIMEOUT 1200 COST 20 RESOURCE_LOCK sim-variant
                     SKIP_RETURN_CODE 77)

# sim.rerun: results/sim/validation's quick-np8 simulated again; every median a simulated tie of the
# committed one (tests/sim/rerun.sh; the tie: python/collrepro/sim/validation/ties.py).
add_test(NAME sim.rerun
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/rerun.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
set_tests_properties(sim.rerun PROPERTIES LABELS "sim" TIMEOUT 1200 COST 5 RESOURCE_LOCK sim-variant)

add_test(NAME sim.shared-backbone
         COMMAND ${PROJECT_SOURCE_DIR}/tests/sim/shared_backbone.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/sim-variant)
set_tests_properties(sim.shared-backbone PROPERTIES LABELS "sim" TIMEOUT 1200 COST 5 RESOURCE_LOCK sim-variant)

# Cores (cmake/TestResources.cmake): sim.smoke, the costliest (ctest starts it first), builds the
# variant with two compile jobs; a simulation is one process.
collrepro_test_cores(sim.smoke 2)
foreach(_sim_test cori-effects fast-path allgather-ring exscan ompi-bcast wide node-platform node-memory node-memory-routes
                  cluster-platform type-cost shared-backbone rerun)
  collrepro_test_cores(sim.${_sim_test} 1)
endforeach()
collrepro_test_cores(sim.hugepages-shared 2)  # four simulations at once
