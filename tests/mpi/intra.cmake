# MPI correctness of the intra-communicator family (algorithms/intra): collbench validates every
# point of tests/mpi/intra.yaml against the computed expectation and the native call, at every
# process count in COLLREPRO_MPI_NPS (collbench exits 3 on a wrong result).
foreach(np ${COLLREPRO_MPI_NPS})
  collrepro_mpi_test(intra.collbench ${np} collbench ${CMAKE_CURRENT_LIST_DIR}/intra.yaml --quiet
                     --out ${CMAKE_CURRENT_BINARY_DIR}/intra-work/np${np} --set experiment=intra-check-np${np})
  set_tests_properties(mpi.${COLLREPRO_MPI_FLAVOR}.intra.collbench.np${np} PROPERTIES
    FIXTURES_REQUIRED intra_clean)
endforeach()
add_test(NAME mpi.${COLLREPRO_MPI_FLAVOR}.intra.clean
         COMMAND ${CMAKE_COMMAND} -E rm -rf ${CMAKE_CURRENT_BINARY_DIR}/intra-work)
set_tests_properties(mpi.${COLLREPRO_MPI_FLAVOR}.intra.clean PROPERTIES FIXTURES_SETUP intra_clean LABELS "mpi")
