# MPI correctness tests of the inter-group algorithms (fully connected family and ring): every
# algorithm the catalogue lists for allgather and allgatherv (tests/mpi/catalogue.cmake), in both
# GroupPair modes, at every process count in COLLREPRO_MPI_NPS, plus the papers' 25:7 ratio; all of
# a collective's algorithms in one launch per mode, call form and count. The tests are added at
# ctest time by tests/mpi/catalogue/intergroup.cmake.
add_executable(inter_check ${CMAKE_CURRENT_LIST_DIR}/inter_check.cpp)
target_link_libraries(inter_check PRIVATE collalgos)

set(_quick)
if(COLLREPRO_MPI_QUICK)
  set(_quick --quick)
endif()
set(INTER_CHECK $<TARGET_FILE:inter_check>)
set(INTER_QUICK ${_quick})
set(INTER_RATIO_NP ${COLLREPRO_MPI_RATIO_NP})
# The nonblocking and persistent forms run at these of the process counts only (a launch per
# (collective, form, mode) with every algorithm that lists the form).
set(COLLREPRO_MPI_CALL_NPS "2;3" CACHE STRING "Process counts of the nonblocking and persistent inter-group MPI tests")
set(INTER_CALL_NPS ${COLLREPRO_MPI_CALL_NPS})
collrepro_catalogue_tests(inter-group ${CMAKE_CURRENT_LIST_DIR}/catalogue/intergroup.cmake
                          INTER_CHECK INTER_QUICK INTER_RATIO_NP INTER_CALL_NPS)
