# ctest time: the isomorphic MPI tests of every algorithm in the catalogue (see ../isomorphic.cmake).
# One launch checks all of a collective's algorithms at once (iso_check --algorithm a,b,...): they
# share the launch and each torus's communicators.
#   mpi.<flavor>.iso.<collective>.np<N>         every algorithm against MPI_Neighbor_*
#   mpi.<flavor>.iso.<collective>.<call>.np<N>  every algorithm that lists the nonblocking or
#                                               persistent form (several starts per init), at
#                                               COLLREPRO_ISO_CALL_NPS
# A failure names the algorithm and the case; each algorithm prints its own summary line.
set(CATALOGUE_EXTRA_ENV "${ISO_ENV}")

foreach(collective neighbor-alltoall neighbor-allgather neighbor-alltoallw)
  catalogue_algorithms(_names ${collective})
  if(NOT _names)
    continue()
  endif()
  set(_nps ${COLLREPRO_ISO_NPS_${collective}})
  if(COLLREPRO_ISO_ALL_NPS)
    set(_nps 1 2 3 4 5 6 7 8)
  endif()
  catalogue_launch_list(_all ${collective} NAMES ${_names})
  foreach(np ${_nps})
    catalogue_mpi_test(iso.${collective} ${np} "${ISO_CHECK}" --collective ${collective} --algorithm ${_all} ${ISO_QUICK})
    set_tests_properties(${CATALOGUE_TEST} PROPERTIES TIMEOUT 600)
  endforeach()
  foreach(call nonblocking persistent)
    catalogue_launch_list(_offering ${collective} CALL ${call} NAMES ${_names})
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
