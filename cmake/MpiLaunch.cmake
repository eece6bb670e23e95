# The MPI launch environment of the tests, taken from python/collrepro/mpienv.py (the one place
# it is written) at configure time: build/<preset>/mpi_launch.cmake sets
#   COLLREPRO_MPI_TEST_ENV      NAME=VALUE list for the tests' ENVIRONMENT property
#   COLLREPRO_MPI_LAUNCH_FLAGS  launcher flags of this build's library (Open MPI: oversubscribe)
# and COLLREPRO_MPIEXEC_FLAGS = COLLREPRO_MPI_LAUNCH_FLAGS + COLLREPRO_MPIEXEC_EXTRA (the cache
# variable for more flags) is what every MPI test passes to its launcher.
set(COLLREPRO_PYTHON /usr/bin/python3 CACHE FILEPATH "Python 3 with the collrepro tools' modules")
set(_launch_py ${PROJECT_SOURCE_DIR}/python/collrepro/mpienv.py)
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_launch_py})
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PROJECT_SOURCE_DIR}/python
          ${COLLREPRO_PYTHON} -m collrepro env --cmake ${PROJECT_BINARY_DIR}/mpi_launch.cmake
          --mpi ${COLLREPRO_MPI_FLAVOR}
  RESULT_VARIABLE _launch_rc ERROR_VARIABLE _launch_err)
if(NOT _launch_rc EQUAL 0)
  message(FATAL_ERROR "collrepro: python3 -m collrepro env --cmake failed (${_launch_rc}): ${_launch_err}")
endif()
include(${PROJECT_BINARY_DIR}/mpi_launch.cmake)
if(COLLREPRO_MPI_LAUNCH_FLAGS AND COLLREPRO_MPIEXEC_EXTRA STREQUAL COLLREPRO_MPI_LAUNCH_FLAGS)
  # a build tree configured when the presets passed these flags themselves: not twice
  set(COLLREPRO_MPIEXEC_EXTRA "" CACHE STRING "" FORCE)
endif()
set(COLLREPRO_MPIEXEC_FLAGS ${COLLREPRO_MPI_LAUNCH_FLAGS} ${COLLREPRO_MPIEXEC_EXTRA})
