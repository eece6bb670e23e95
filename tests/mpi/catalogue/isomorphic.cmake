# ctest time: the isomorphic MPI tests of every algorithm in the catalogue (see ../isomorphic.cmake).
# One launch checks all of a collective's algorithms at once (iso_check --algorithm a,b,...): they
# share the launch and each torus's communicators.
#   mpi.<flavor>.iso.<collective>.np<N>         every algorithm against MPI_Neighbor_*
#   mpi.<flavor>.iso.<collective>.<call>.np<N>  every algorithm that lists the nonblocking or
#                                               persistent form (several starts per init), at
#                                               COLLREPRO_ISO_CALL_NPS
# A failure names the algorithm and the case; each algorithm prints its own summary line.
set(CATALOGUE_EXTRA_ENV "${ISO_ENV}")

# _iso_names(<out> <collective> [CALL <call>] NAMES <names...>): the names (that list the call
# form), joined by commas ("" when none).
function(_iso_names out collective)
  cmake_parse_arguments(_a "" "CALL" "NAMES" ${ARGN})
  set(_kept)
  foreach(name ${_a_NAMES})
    if(_a_CALL)
      catalogue_calls(_calls ${collective} ${name})
      list(FIND _calls ${_a_CALL} _has)  # (ctest runs this script without policy CMP0057: no IN_LIST)
      if(_has EQUAL -1)
        continue()
      endif()
    endif()
    list(APPEND _kept ${name})
  endforeach()
  string(REPLACE ";" "," _joined "${_kept}")
  set(${out} "${_joined}" PARENT_SCOPE)
endfunction()

foreach(collective neighbor-alltoall neighbor-allgather neighbor-alltoallw)
  catalogue_algorithms(_names ${collective})
  if(NOT _names)
    continue()
  endif()
  set(_nps ${COLLREPRO_ISO_NPS_${collective}})
  if(COLLREPRO_ISO_ALL_NPS)
    set(_nps 1 2 3 4 5 6 7 8)
  endif()
  _iso_names(_all ${collective} NAMES ${_names})
  foreach(np ${_nps})
    catalogue_mpi_test(iso.${collective} ${np} "${ISO_CHECK}" --collective ${collective} --algorithm ${_all} ${ISO_QUICK})
    set_tests_properties(${CATALOGUE_TEST} PROPERTIES TIMEOUT 600)
  endforeach()
  foreach(call nonblocking persistent)
    _iso_names(_offering ${collective} CALL ${call} NAMES ${_names})
    if(_offering STREQUAL "")
      continue()
    endif()
    foreach(np ${COLLREPRO_ISO_CALL_NPS})
      catalogue_mpi_test(iso.${collective}.${call} ${np} "${ISO_CHECK}"
                         --collective ${collective} --algorithm ${_offering} --call ${call} ${ISO_QUICK})
      # 77: this library lacks the form for every listed algorithm, or it failed the capability
      # probe (the reasons are printed).
      set_tests_properties(${CATALOGUE_TEST} PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
    endforeach()
  endforeach()
endforeach()
