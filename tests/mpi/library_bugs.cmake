# Known MPI library bugs of the nonblocking and persistent calls, reproduced or ruled out on the
# installed library (library_bugs.cpp; findings in results/callforms/README.md). 4 processes: a
# power of two with blocks of 2 (recursive doubling), and an intercommunicator of 2 + 2.
add_executable(library_bugs ${CMAKE_CURRENT_LIST_DIR}/library_bugs.cpp)
target_link_libraries(library_bugs PRIVATE collalgos)
collrepro_mpi_test(library-bugs 4 library_bugs)
set_tests_properties(mpi.${COLLREPRO_MPI_FLAVOR}.library-bugs.np4 PROPERTIES TIMEOUT 120)
