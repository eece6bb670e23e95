# ctest time (included by the generated catalogue-tests-<family>.cmake): reading the catalogue
# and adding MPI tests the way collrepro_mpi_test (tests/CMakeLists.txt) does at configure time.

# catalogue_algorithms(<out> <collective>): the names of <collective>'s algorithms, in catalogue order.
# Without a catalogue (collbench not built yet) one failing test says so, and the list is empty.
set(_catalogue_text "")
if(EXISTS "${COLLREPRO_CATALOGUE_JSON}")
  file(READ "${COLLREPRO_CATALOGUE_JSON}" _catalogue_text)
  string(JSON _catalogue_n ERROR_VARIABLE _catalogue_err LENGTH "${_catalogue_text}" algorithms)
  if(_catalogue_err)
    set(_catalogue_text "")
  endif()
endif()
if(_catalogue_text STREQUAL "")
  add_test(mpi.${COLLREPRO_MPI_FLAVOR}.catalogue.${CATALOGUE_FAMILY} "${CMAKE_COMMAND}" -E echo
           "no readable ${COLLREPRO_CATALOGUE_JSON}: build collbench (cmake --build --preset ${COLLREPRO_MPI_FLAVOR}) to list the ${CATALOGUE_FAMILY} MPI tests")
  set_tests_properties(mpi.${COLLREPRO_MPI_FLAVOR}.catalogue.${CATALOGUE_FAMILY} PROPERTIES
                       WILL_FAIL TRUE LABELS "mpi;${COLLREPRO_MPI_FLAVOR}")
endif()

function(catalogue_algorithms out collective)
  set(_names)
  if(NOT _catalogue_text STREQUAL "")
    math(EXPR _last "${_catalogue_n} - 1")
    foreach(i RANGE ${_last})
      string(JSON _c GET "${_catalogue_text}" algorithms ${i} collective)
      if(_c STREQUAL collective)
        string(JSON _name GET "${_catalogue_text}" algorithms ${i} name)
        list(APPEND _names ${_name})
      endif()
    endforeach()
  endif()
  set(${out} ${_names} PARENT_SCOPE)
endfunction()

# catalogue_calls(<out> <collective> <name>): the call forms the catalogue lists for that algorithm
# other than blocking (its "calls"), in catalogue order; empty for an entry without the field.
function(catalogue_calls out collective name)
  set(_calls)
  if(NOT _catalogue_text STREQUAL "")
    math(EXPR _last "${_catalogue_n} - 1")
    foreach(i RANGE ${_last})
      string(JSON _c GET "${_catalogue_text}" algorithms ${i} collective)
      string(JSON _name GET "${_catalogue_text}" algorithms ${i} name)
      if(_c STREQUAL collective AND _name STREQUAL name)
        string(JSON _n ERROR_VARIABLE _err LENGTH "${_catalogue_text}" algorithms ${i} calls)
        if(NOT _err AND _n GREATER 0)
          math(EXPR _clast "${_n} - 1")
          foreach(j RANGE ${_clast})
            string(JSON _call GET "${_catalogue_text}" algorithms ${i} calls ${j})
            if(NOT _call STREQUAL "blocking")
              list(APPEND _calls ${_call})
            endif()
          endforeach()
        endif()
      endif()
    endforeach()
  endif()
  set(${out} ${_calls} PARENT_SCOPE)
endfunction()

# catalogue_launch_list(<out> <collective> [CALL <call>] [EXCLUDE <name>...] NAMES <names...>): one
# launch's --algorithm list: the names that list the call form (every name without CALL), less
# EXCLUDE, joined by commas ("" when none).
function(catalogue_launch_list out collective)
  cmake_parse_arguments(_a "" "CALL" "EXCLUDE;NAMES" ${ARGN})
  set(_kept)
  foreach(name ${_a_NAMES})
    list(FIND _a_EXCLUDE ${name} _excluded)  # (ctest runs this script without policy CMP0057: no IN_LIST)
    if(NOT _excluded EQUAL -1)
      continue()
    endif()
    if(_a_CALL)
      catalogue_calls(_calls ${collective} ${name})
      list(FIND _calls ${_a_CALL} _has)
      if(_has EQUAL -1)
        continue()
      endif()
    endif()
    list(APPEND _kept ${name})
  endforeach()
  string(REPLACE ";" "," _joined "${_kept}")
  set(${out} "${_joined}" PARENT_SCOPE)
endfunction()

# catalogue_mpi_test(<name> <np> <executable> [args...]): mpi.<flavor>.<name>.np<np>, launched
# with this build's launcher and the MPI test environment, plus CATALOGUE_EXTRA_ENV where the
# caller sets it. Sets CATALOGUE_TEST to the test's name.
function(catalogue_mpi_test name np exe)
  set(_test "mpi.${COLLREPRO_MPI_FLAVOR}.${name}.np${np}")
  add_test(${_test} "${MPIEXEC_EXECUTABLE}" ${MPIEXEC_NUMPROC_FLAG} ${np} ${COLLREPRO_MPIEXEC_EXTRA}
           ${MPIEXEC_PREFLAGS} "${exe}" ${MPIEXEC_POSTFLAGS} ${ARGN})
  set_tests_properties(${_test} PROPERTIES LABELS "mpi;${COLLREPRO_MPI_FLAVOR}" TIMEOUT 900
                       ENVIRONMENT "${COLLREPRO_MPI_TEST_ENV};${CATALOGUE_EXTRA_ENV}")
  collrepro_test_cores(${_test} ${np})
  set(CATALOGUE_TEST ${_test} PARENT_SCOPE)
endfunction()
