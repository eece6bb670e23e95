# CPU cores as a ctest resource, so that CPU-bound tests never share cores with each other.
#
# Every test that keeps processors busy (an MPI launch, a SimGrid run, a fuzz run, a build inside a
# test) declares how many cores it occupies with collrepro_test_cores(<test> <n>): n is clamped to
# the machine's cores, so a test that oversubscribes (8 ranks on 2 cores) takes all of them and runs
# alone among the CPU-bound tests. The cheap tests (GoogleTest plans, file checks) declare nothing
# and fill the gaps.
#
# The pool is <build>/ctest-resources.json (one resource `cores` with as many slots as the machine
# has logical cores), written at configure time. ctest uses it when told to: the test presets name
# it (CMakePresets.json, resourceSpecFile), and tests/run-all passes it with --resource-spec-file.
# Without the file (a bare `ctest` in the build tree) the declarations are ignored and ctest -j
# alone decides what runs together.

# At ctest time (the catalogue's generated test files include this module for its functions)
# COLLREPRO_TEST_CORES comes from the configuration and nothing is written.
if(NOT DEFINED COLLREPRO_TEST_CORES)
  cmake_host_system_information(RESULT COLLREPRO_TEST_CORES QUERY NUMBER_OF_LOGICAL_CORES)
  if(NOT COLLREPRO_TEST_CORES GREATER 0)
    set(COLLREPRO_TEST_CORES 1)
  endif()
  file(WRITE ${CMAKE_BINARY_DIR}/ctest-resources.json
    "{\"version\": {\"major\": 1, \"minor\": 0},\n"
    " \"local\": [{\"cores\": [{\"id\": \"machine\", \"slots\": ${COLLREPRO_TEST_CORES}}]}]}\n")
endif()

# collrepro_cores_needed(<out> <n>): n clamped to 1..COLLREPRO_TEST_CORES.
function(collrepro_cores_needed out n)
  if(n GREATER COLLREPRO_TEST_CORES)
    set(n ${COLLREPRO_TEST_CORES})
  elseif(n LESS 1)
    set(n 1)
  endif()
  set(${out} ${n} PARENT_SCOPE)
endfunction()

# collrepro_test_cores(<test> <n>): <test> occupies n cores (clamped) while it runs.
function(collrepro_test_cores test n)
  collrepro_cores_needed(_n ${n})
  set_tests_properties(${test} PROPERTIES RESOURCE_GROUPS "cores:${_n}")
endfunction()
