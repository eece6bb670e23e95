# MPI correctness tests of the isomorphic sparse collectives (seed 004): every algorithm the
# catalogue lists for neighbor-alltoall, neighbor-allgather and neighbor-alltoallw
# (tests/mpi/catalogue.cmake; added at ctest time by tests/mpi/catalogue/isomorphic.cmake),
# compared bit for bit with MPI_Neighbor_* on MPI_Dist_graph_create_adjacent (iso_check.cpp),
# and a smoke test of the Table 2 set-up time hooks.
#
# Process counts: every algorithm runs at every count 1..8 (oversubscribed; MPICH up to 5), spread
# over the three collectives so that the suite stays within about a minute on a 2-core machine.
# -DCOLLREPRO_ISO_ALL_NPS=ON runs every collective at every count (about 3x longer).
add_executable(iso_check ${CMAKE_CURRENT_LIST_DIR}/iso_check.cpp)
target_link_libraries(iso_check PRIVATE collalgos)

# MPICH (ch4) busy-polls while it waits (below): its counts stop at 5, as its inter-group tests do
# (tests/run-all), each collective keeping one count of 3 or more.
if(COLLREPRO_MPI_FLAVOR STREQUAL "mpich")
  set(_iso_nps_alltoall "2;5")
  set(_iso_nps_allgather "1;3")
  set(_iso_nps_alltoallw "4")
else()
  set(_iso_nps_alltoall "2;5;8")
  set(_iso_nps_allgather "1;3;6")
  set(_iso_nps_alltoallw "4;7")
endif()
set(COLLREPRO_ISO_NPS_neighbor-alltoall "${_iso_nps_alltoall}" CACHE STRING "Process counts of the neighbor-alltoall MPI tests")
set(COLLREPRO_ISO_NPS_neighbor-allgather "${_iso_nps_allgather}" CACHE STRING "Process counts of the neighbor-allgather MPI tests")
set(COLLREPRO_ISO_NPS_neighbor-alltoallw "${_iso_nps_alltoallw}" CACHE STRING "Process counts of the neighbor-alltoallw MPI tests")
option(COLLREPRO_ISO_ALL_NPS "Run every isomorphic collective at every process count 1..8" OFF)
# The nonblocking and persistent forms: every (collective, algorithm, form) at these counts only
# (4: a 2 x 2 torus, whose offsets wrap around to the process itself).
set(COLLREPRO_ISO_CALL_NPS "4" CACHE STRING "Process counts of the nonblocking and persistent isomorphic MPI tests")
# MPICH (ch4) busy-polls while it waits, so on an oversubscribed 2-core machine every blocking
# step costs a scheduler time slice: its tests default to the core tori (iso_check --quick),
# which keep every edge-case class; Open MPI yields (mpi_yield_when_idle) and runs them all.
if(COLLREPRO_MPI_FLAVOR STREQUAL "mpich")
  set(_iso_quick_default ON)
else()
  set(_iso_quick_default OFF)
endif()
option(COLLREPRO_ISO_QUICK "Isomorphic MPI tests on the core tori only (iso_check --quick)" ${_iso_quick_default})
set(_iso_quick_flag)
if(COLLREPRO_ISO_QUICK)
  set(_iso_quick_flag --quick)
endif()

# Open MPI 4.1's topo/treematch component hangs now and then in repeated MPI_Dist_graph_create
# calls (open-mpi/ompi#8991), which mpi-neighbor-remapped and measure_setup make: these tests run
# without it, as every MPI test does (COLLREPRO_MPI_TEST_ENV, python/collrepro/mpienv.py).

# Test names: mpi.<flavor>.iso.<collective>.np<N>, all of the collective's algorithms in one launch
# (`ctest -R iso` selects them all).
function(_iso_test name np)
  collrepro_mpi_test(iso.${name} ${np} iso_check ${ARGN})
  set_property(TEST "mpi.${COLLREPRO_MPI_FLAVOR}.iso.${name}.np${np}" PROPERTY TIMEOUT 300)
endfunction()

set(ISO_CHECK $<TARGET_FILE:iso_check>)
set(ISO_QUICK ${_iso_quick_flag})
set(ISO_ENV ${_iso_env})
collrepro_catalogue_tests(isomorphic ${CMAKE_CURRENT_LIST_DIR}/catalogue/isomorphic.cmake ISO_CHECK ISO_QUICK ISO_ENV
                          COLLREPRO_ISO_ALL_NPS COLLREPRO_ISO_NPS_neighbor-alltoall COLLREPRO_ISO_NPS_neighbor-allgather
                          COLLREPRO_ISO_NPS_neighbor-alltoallw COLLREPRO_ISO_CALL_NPS)
_iso_test(setup-times 4 --setup-times)
