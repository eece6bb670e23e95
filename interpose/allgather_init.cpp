// The persistent Allgather's and Allgatherv's entry points, under the names the build found by
// compiling against the MPI library's headers (interpose/CMakeLists.txt, never by the library's
// name): MPI-4's MPI_Allgather(v)_init (MPICH 4, Open MPI 5), or Open MPI 4.1's
// MPIX_Allgather(v)_init (the pcollreq extension, mpi-ext.h; both come in one). With neither, the
// library defines none and the application's calls reach the MPI library directly. The work is
// intergroup_calls.cpp's.
#include "intergroup_calls.hpp"

#include "persistent_names.hpp"

#ifdef COLLREPRO_PERSISTENT

extern "C" int COLLREPRO_PERSISTENT(Allgather_init)(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                                                    int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info,
                                                    MPI_Request* request) {
  return collrepro::pmpi::allgather_init_call(COLLREPRO_TEXT(COLLREPRO_PERSISTENT(Allgather_init)),
                                              COLLREPRO_LIBRARY(Allgather_init), sbuf, scount, stype, rbuf, rcount,
                                              rtype, comm, info, request);
}

extern "C" int COLLREPRO_PERSISTENT(Allgatherv_init)(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                                                     const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                                                     MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return collrepro::pmpi::allgatherv_init_call(COLLREPRO_TEXT(COLLREPRO_PERSISTENT(Allgatherv_init)),
                                               COLLREPRO_LIBRARY(Allgatherv_init), sbuf, scount, stype, rbuf, rcounts,
                                               rdispls, rtype, comm, info, request);
}
#endif
