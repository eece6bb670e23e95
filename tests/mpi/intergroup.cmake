# MPI correctness tests of the inter-group algorithms (fully connected family and ring),
# by algorithm name, in both GroupPair modes, at every process count in COLLREPRO_MPI_NPS.
add_executable(inter_check ${CMAKE_CURRENT_LIST_DIR}/inter_check.cpp)
target_link_libraries(inter_check PRIVATE collalgos)

set(COLLREPRO_ALLGATHER_ALGORITHMS native root-gathering halfduplex-fc halfduplex-fc-minvol fullduplex-allgather
    eurompi-twostep)
set(COLLREPRO_ALLGATHERV_ALGORITHMS native root-gathering fullduplex-allgatherv fullduplex-allgatherv-ordered)
# Algorithms that support only even group sizes append themselves here (no 25:7 test).
set(COLLREPRO_EVEN_GROUPS_ONLY)
# Further algorithms add themselves to these lists from their own fragment (e.g. ring.cmake).
file(GLOB _inter_extra CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/inter_algorithms_*.inc)
foreach(f ${_inter_extra})
  include(${f})
endforeach()

set(_quick)
if(COLLREPRO_MPI_QUICK)
  set(_quick --quick)
endif()
foreach(collective allgather allgatherv)
  string(TOUPPER ${collective} _upper)
  set(_names ${COLLREPRO_${_upper}_ALGORITHMS})
  string(REPLACE ";" "," _joined "${_names}")
  collrepro_mpi_test(${collective}.registry-coverage 1 inter_check --collective ${collective} --expect ${_joined})
  foreach(name ${_names})
    foreach(np ${COLLREPRO_MPI_NPS})
      foreach(mode intercomm intracomm)
        if(name STREQUAL "native" AND mode STREQUAL "intracomm")
          continue()
        endif()
        collrepro_mpi_test(${collective}.${name}.${mode} ${np} inter_check
                           --collective ${collective} --algorithm ${name} --mode ${mode} ${_quick})
      endforeach()
    endforeach()
    # The papers' non-divisible ratio 25:7 and its swap need 32 processes.
    if(COLLREPRO_MPI_RATIO_NP AND NOT name IN_LIST COLLREPRO_EVEN_GROUPS_ONLY)
      collrepro_mpi_test(${collective}.${name}.ratio-25-7 ${COLLREPRO_MPI_RATIO_NP} inter_check
                         --collective ${collective} --algorithm ${name} --mode intercomm --quick --pairs 25:7,7:25)
    endif()
  endforeach()
endforeach()
