# ctest time: the inter-group MPI tests of every algorithm in the catalogue (see ../intergroup.cmake).
#   mpi.<flavor>.<collective>.<algorithm>.<mode>.np<N>   inter_check against the native call
#   mpi.<flavor>.<collective>.<algorithm>.<mode>.<call>.np<N> each nonblocking or persistent form
#                                                  the catalogue lists (several starts per init), at
#                                                  the counts of COLLREPRO_MPI_CALL_NPS only
#   mpi.<flavor>.<collective>.<algorithm>.ratio-25-7.np<R> the papers' non-divisible ratio and its swap
# native runs on intercommunicators only (it is the MPI call there).
foreach(collective allgather allgatherv)
  catalogue_algorithms(_names ${collective})
  foreach(name ${_names})
    foreach(np ${COLLREPRO_MPI_NPS})
      foreach(mode intercomm intracomm)
        if(name STREQUAL "native" AND mode STREQUAL "intracomm")
          continue()
        endif()
        catalogue_mpi_test(${collective}.${name}.${mode} ${np} "${INTER_CHECK}"
                           --collective ${collective} --algorithm ${name} --mode ${mode} ${INTER_QUICK})
        catalogue_calls(_calls ${collective} ${name})
        list(FIND INTER_CALL_NPS ${np} _at)  # (ctest runs this script without policy CMP0057: no IN_LIST)
        if(_at EQUAL -1)
          set(_calls)
        endif()
        foreach(call ${_calls})
          catalogue_mpi_test(${collective}.${name}.${mode}.${call} ${np} "${INTER_CHECK}"
                             --collective ${collective} --algorithm ${name} --mode ${mode} --call ${call} ${INTER_QUICK})
          # 77: this library lacks the form or it failed the capability probe (the reason is printed).
          set_tests_properties(${CATALOGUE_TEST} PROPERTIES SKIP_RETURN_CODE 77)
        endforeach()
      endforeach()
    endforeach()
    if(INTER_RATIO_NP)
      catalogue_mpi_test(${collective}.${name}.ratio-25-7 ${INTER_RATIO_NP} "${INTER_CHECK}"
                         --collective ${collective} --algorithm ${name} --mode intercomm --quick --pairs 25:7,7:25)
    endif()
  endforeach()
endforeach()
