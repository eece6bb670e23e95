// The persistent Allgather's entry point, under the name the build found by compiling against
// the MPI library's headers (interpose/CMakeLists.txt, never by the library's name): MPI-4's
// MPI_Allgather_init (MPICH 4, Open MPI 5), or Open MPI 4.1's MPIX_Allgather_init (the pcollreq
// extension, mpi-ext.h). With neither, the library defines none and the application's calls
// reach the MPI library directly. The work is intergroup_calls.cpp's.
#include "intergroup_calls.hpp"

#if COLLREPRO_HAVE_PMPIX_ALLGATHER_INIT && !COLLREPRO_HAVE_PMPI_ALLGATHER_INIT
#include <mpi-ext.h>
#endif

#if COLLREPRO_HAVE_PMPI_ALLGATHER_INIT
#define COLLREPRO_PERSISTENT(name) MPI_##name
#define COLLREPRO_LIBRARY(name) PMPI_##name
#elif COLLREPRO_HAVE_PMPIX_ALLGATHER_INIT
#define COLLREPRO_PERSISTENT(name) MPIX_##name
#define COLLREPRO_LIBRARY(name) PMPIX_##name
#endif

#ifdef COLLREPRO_PERSISTENT
#define COLLREPRO_TEXT_INNER(x) #x
#define COLLREPRO_TEXT(x) COLLREPRO_TEXT_INNER(x)

extern "C" int COLLREPRO_PERSISTENT(Allgather_init)(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                                                    int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info,
                                                    MPI_Request* request) {
  return collrepro::pmpi::allgather_init_call(COLLREPRO_TEXT(COLLREPRO_PERSISTENT(Allgather_init)),
                                              COLLREPRO_LIBRARY(Allgather_init), sbuf, scount, stype, rbuf, rcount,
                                              rtype, comm, info, request);
}
#endif
