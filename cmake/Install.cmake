# cmake --install BUILD --prefix P: collrepro as a relocatable tree (a cluster module), by target
# names only:
#   P/bin/collbench, P/bin/collrepro-py (the tools' front door, the same name as in a checkout)
#   P/lib/libcollrepro_pmpi.so and P/lib/pkgconfig/collrepro-pmpi.pc
#   P/lib/libcollrepro_algos.a, libcollplan.a, P/include/collrepro/, P/lib/cmake/collrepro/:
#     find_package(collrepro) -> collrepro::algorithms (every self-registering algorithm linked)
#   P/share/collrepro/: the Python package (python/), configs/, contract/, slurm/, docs and the
#     READMEs, laid out as in the repository, and installed.json (which library collbench uses,
#     where P/bin is, relative), by which the tools know they run from an installed tree.
# Nothing installed names the build or source directory; tests/install checks it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
if(COLLREPRO_SMPI)
  return()  # the simulation variant runs from its build tree (bench/sim/README.md)
endif()
set(_share ${CMAKE_INSTALL_DATADIR}/collrepro)

install(TARGETS collbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(PROGRAMS ${PROJECT_SOURCE_DIR}/collrepro-py DESTINATION ${CMAKE_INSTALL_BINDIR})

# The PMPI library and its pkg-config file (libdir relative to the file: relocatable).
install(TARGETS collrepro_pmpi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
set(COLLREPRO_PC_LIBDIR "\${pcfiledir}/..")
configure_file(${PROJECT_SOURCE_DIR}/interpose/collrepro-pmpi.pc.in
               ${PROJECT_BINARY_DIR}/install/collrepro-pmpi.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/install/collrepro-pmpi.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The algorithm library: collalgos' objects in one archive (linked whole: the algorithms register
# themselves from static initialisers nothing else refers to), collplan beside it, the headers.
add_library(collrepro_algos STATIC $<TARGET_OBJECTS:collalgos>)
install(TARGETS collrepro_algos collplan ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/algorithms/include/collrepro DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${COLLREPRO_CONTRACT_INCLUDE}/collrepro/contract_enums.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/collrepro)  # generated from the contract
set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/collrepro)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/collreproConfig.cmake.in
  ${PROJECT_BINARY_DIR}/install/collreproConfig.cmake INSTALL_DESTINATION ${_cmake_dir}
  PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR NO_SET_AND_CHECK_MACRO NO_CHECK_REQUIRED_COMPONENTS_MACRO)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/install/collreproConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/install/collreproConfig.cmake
              ${PROJECT_BINARY_DIR}/install/collreproConfigVersion.cmake DESTINATION ${_cmake_dir})

# The tools, their data and the documentation, in the repository's layout under P/share/collrepro.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/collrepro DESTINATION ${_share}/python
        FILES_MATCHING PATTERN "*.py" PATTERN "*.json" PATTERN "__pycache__" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs ${PROJECT_SOURCE_DIR}/contract ${PROJECT_SOURCE_DIR}/docs
        DESTINATION ${_share})
install(FILES ${PROJECT_SOURCE_DIR}/slurm/array.sbatch.in ${PROJECT_SOURCE_DIR}/slurm/README.md
        DESTINATION ${_share}/slurm)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${_share})
foreach(_readme analysis/README.md interpose/README.md bench/README.md results/CONTRACT.md)
  get_filename_component(_dir ${_readme} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${_readme} DESTINATION ${_share}/${_dir})
endforeach()
file(RELATIVE_PATH _bindir /P/${_share} /P/${CMAKE_INSTALL_BINDIR})
file(WRITE ${PROJECT_BINARY_DIR}/install/installed.json
     "{\"mpi\": \"${COLLREPRO_MPI_FLAVOR}\", \"bindir\": \"${_bindir}\", \"version\": \"${PROJECT_VERSION}\"}\n")
install(FILES ${PROJECT_BINARY_DIR}/install/installed.json DESTINATION ${_share})
