# ctest time: the inter-group MPI tests of every algorithm in the catalogue (see ../intergroup.cmake).
# One launch checks all of a collective's algorithms at once (inter_check --algorithm a,b,...):
# they share the launch, the group pairs' communicators and each case's native reference.
#   mpi.<flavor>.<collective>.<mode>.np<N>         every algorithm against the native call
#   mpi.<flavor>.<collective>.<mode>.<call>.np<N>  every algorithm that lists the nonblocking or
#                                                  persistent form (several starts per init), at
#                                                  the counts of COLLREPRO_MPI_CALL_NPS only
#   mpi.<flavor>.<collective>.ratio-25-7.np<R>     the papers' non-divisible ratio and its swap
# A failure names the algorithm and the case; each algorithm prints its own summary line.
# native runs on intercommunicators only: it is left out of the intracomm launches.
function(_inter_exclude out mode)
  set(_x)
  if(mode STREQUAL "intracomm")
    set(_x native)
  endif()
  set(${out} ${_x} PARENT_SCOPE)
endfunction()

foreach(collective allgather allgatherv)
  catalogue_algorithms(_names ${collective})
  if(NOT _names)
    continue()
  endif()
  foreach(np ${COLLREPRO_MPI_NPS})
    list(FIND INTER_CALL_NPS ${np} _call_np)
    foreach(mode intercomm intracomm)
      _inter_exclude(_x ${mode})
      catalogue_launch_list(_all ${collective} EXCLUDE ${_x} NAMES ${_names})
      catalogue_mpi_test(${collective}.${mode} ${np} "${INTER_CHECK}"
                         --collective ${collective} --algorithm ${_all} --mode ${mode} ${INTER_QUICK})
      if(_call_np EQUAL -1)
        continue()
      endif()
      foreach(call nonblocking persistent)
        catalogue_launch_list(_offering ${collective} CALL ${call} EXCLUDE ${_x} NAMES ${_names})
        if(_offering STREQUAL "")
          continue()
        endif()
        catalogue_mpi_test(${collective}.${mode}.${call} ${np} "${INTER_CHECK}"
                           --collective ${collective} --algorithm ${_offering} --mode ${mode} --call ${call} ${INTER_QUICK})
        # 77: this library lacks the form for every listed algorithm, or it failed the capability
        # probe (the reasons are printed).
        set_tests_properties(${CATALOGUE_TEST} PROPERTIES SKIP_RETURN_CODE 77)
      endforeach()
    endforeach()
  endforeach()
  if(INTER_RATIO_NP)
    catalogue_launch_list(_all ${collective} NAMES ${_names})
    catalogue_mpi_test(${collective}.ratio-25-7 ${INTER_RATIO_NP} "${INTER_CHECK}"
                       --collective ${collective} --algorithm ${_all} --mode intercomm --quick --pairs 25:7,7:25)
  endif()
endforeach()
