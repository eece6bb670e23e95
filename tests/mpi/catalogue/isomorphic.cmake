# ctest time: the isomorphic MPI tests of every algorithm in the catalogue (see ../isomorphic.cmake).
#   mpi.<flavor>.iso.<collective>.<algorithm>.np<N>   iso_check against MPI_Neighbor_*
#   mpi.<flavor>.iso.<collective>.<algorithm>.<call>.np<N> each nonblocking or persistent form the
#                                  catalogue lists (several starts per init), at COLLREPRO_ISO_CALL_NPS
set(CATALOGUE_EXTRA_ENV "${ISO_ENV}")
foreach(collective neighbor-alltoall neighbor-allgather neighbor-alltoallw)
  catalogue_algorithms(_names ${collective})
  set(_nps ${COLLREPRO_ISO_NPS_${collective}})
  if(COLLREPRO_ISO_ALL_NPS)
    set(_nps 1 2 3 4 5 6 7 8)
  endif()
  foreach(name ${_names})
    foreach(np ${_nps})
      catalogue_mpi_test(iso.${collective}.${name} ${np} "${ISO_CHECK}"
                         --collective ${collective} --algorithm ${name} ${ISO_QUICK})
      set_tests_properties(${CATALOGUE_TEST} PROPERTIES TIMEOUT 300)
    endforeach()
    catalogue_calls(_calls ${collective} ${name})
    foreach(np ${COLLREPRO_ISO_CALL_NPS})
      foreach(call ${_calls})
        catalogue_mpi_test(iso.${collective}.${name}.${call} ${np} "${ISO_CHECK}"
                           --collective ${collective} --algorithm ${name} --call ${call} ${ISO_QUICK})
        # 77: this library lacks the form or it failed the capability probe (the reason is printed).
        set_tests_properties(${CATALOGUE_TEST} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
      endforeach()
    endforeach()
  endforeach()
endforeach()
