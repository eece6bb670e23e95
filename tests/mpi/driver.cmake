# collbench (bench/) tests, all named driver.*:
#   driver.<Suite>.<Test>        GoogleTest, no MPI: config parsing and errors, units, Tukey/median,
#                                CSV, plan and slices, placements, resume recovery
#   driver.<flavor>.<script>     bash scripts in tests/driver launching collbench with this build's
#                                launcher: e2e (quick.yaml shrunk), resume after kill -9, SIGTERM,
#                                clock sync (window, round-time, residuals), exit codes (incl. a deliberately broken algorithm),
#                                arrival patterns (the CSV's pattern and times, the barrier refusal),
#                                reliability (issue #17: bounded inputs, damaged result files),
#                                compressed (resume and analysis of .gz result files),
#                                callforms (the call form as an axis), overlap (a nonblocking
#                                call's overlap on test-only calls of known overlap),
#                                full_disk (issue #29: a tmpfs filled at several points; skipped
#                                without permission to mount)
# Run: ctest --test-dir build/<dir> -R driver
set(_driver_dir ${PROJECT_SOURCE_DIR}/tests/driver)

if(COLLREPRO_LIBRARY_FREE_TESTS)  # no MPI launch: the first build's (top CMakeLists.txt)
  file(GLOB _driver_unit_sources CONFIGURE_DEPENDS ${_driver_dir}/*_test.cpp)
  add_executable(driver_unit ${_driver_unit_sources})
  target_link_libraries(driver_unit PRIVATE collbench_obj collalgos GTest::gtest_main)
  target_compile_definitions(driver_unit PRIVATE COLLREPRO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")  # golden_test.cpp
  gtest_discover_tests(driver_unit TEST_PREFIX "driver." PROPERTIES LABELS driver DISCOVERY_TIMEOUT 60)
endif()

# collbench plus test-only algorithms: a deliberately wrong one (the validation-failure exit
# code), a deliberately slow one (a sweep that is reliably still running when interrupted) and
# two nonblocking calls of known overlap (overlap.sh).
add_executable(collbench_test ${_driver_dir}/test_collbench.cpp)
target_link_libraries(collbench_test PRIVATE collbench_obj collalgos)

string(REPLACE ";" " " _driver_mpiexec_extra "${COLLREPRO_MPIEXEC_FLAGS}")
# Cores (cmake/TestResources.cmake): the scripts' launches run 4 ranks, which keep the cores busy
# while they run (Open MPI's yielding ranks too: declared as one core, beside other tests, they
# slowed them more than they gained).
foreach(script e2e_quick resume_kill sigterm clock_sync errors reliability full_disk phases arrival compressed callforms
               overlap)
  set(_name driver.${COLLREPRO_MPI_FLAVOR}.${script})
  set(_env "${COLLREPRO_MPI_TEST_ENV}")
  if(script MATCHES "^(clock_sync|overlap)$")  # label timing (below): the library as its users run it
    set(_env "${COLLREPRO_MPI_TIMING_ENV}")
  endif()
  add_test(NAME ${_name} COMMAND bash ${_driver_dir}/${script}.sh)
  set_tests_properties(${_name} PROPERTIES
    LABELS "driver;mpi;${COLLREPRO_MPI_FLAVOR}" TIMEOUT 180
    ENVIRONMENT "COLLBENCH=$<TARGET_FILE:collbench>;TEST_COLLBENCH=$<TARGET_FILE:collbench_test>;MPIEXEC=${MPIEXEC_EXECUTABLE};MPIEXEC_NP=${MPIEXEC_NUMPROC_FLAG};MPIEXEC_EXTRA=${_driver_mpiexec_extra};REPO=${PROJECT_SOURCE_DIR};WORK=${CMAKE_CURRENT_BINARY_DIR}/driver-work/${script};NP=4;${_env}")
  collrepro_test_cores(${_name} 4)
endforeach()
# clock_sync asserts on timing behaviour (residuals within the claimed precision, a stopped
# rank's late starts caught rather than timed; label timing): its cores keep the other CPU-bound
# tests off while it runs, and tests/stress-timing shows it passing beside busy loops.
# overlap's verdicts compare times as well (on calls whose overlap is known, with a wide margin).
set_tests_properties(driver.${COLLREPRO_MPI_FLAVOR}.clock_sync driver.${COLLREPRO_MPI_FLAVOR}.overlap PROPERTIES
                     LABELS "driver;mpi;${COLLREPRO_MPI_FLAVOR};timing")
# phases runs every inter-group and ring algorithm under two sync methods (one size, three
# repetitions): MPICH's busy-polling ranks (4 on 2 cores) make it the slowest driver test there.
set_tests_properties(driver.${COLLREPRO_MPI_FLAVOR}.phases PROPERTIES TIMEOUT 300)
# full_disk mounts a small tmpfs (root only); where mount is not permitted it exits 77: skipped.
set_tests_properties(driver.${COLLREPRO_MPI_FLAVOR}.full_disk PROPERTIES SKIP_RETURN_CODE 77)

# Every value the writer can produce (each C++ enum, the families, the registry) through the
# Python contract and the loader's column check (no MPI run; about a second).
if(COLLREPRO_LIBRARY_FREE_TESTS)
  add_executable(contract_values ${_driver_dir}/contract_values.cpp)
  target_link_libraries(contract_values PRIVATE collbench_obj collalgos)
  add_test(NAME driver.contract_values
           COMMAND /usr/bin/python3 ${_driver_dir}/check_contract_values.py $<TARGET_FILE:contract_values>)
  set_tests_properties(driver.contract_values PROPERTIES LABELS driver TIMEOUT 60)
  collrepro_test_cores(driver.contract_values 1)
endif()
