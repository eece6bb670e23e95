// The persistent neighbourhood collectives' entry points, under the names the build found by
// compiling against the MPI library's headers (interpose/CMakeLists.txt, never by the
// library's name): MPI-4's MPI_Neighbor_alltoall_init, MPI_Neighbor_allgather_init and
// MPI_Neighbor_alltoallw_init (MPICH 4, Open MPI 5), or Open MPI 4.1's MPIX_ ones (the pcollreq
// extension, mpi-ext.h). With neither, the library defines none and the application's calls
// reach the MPI library directly. The work is neighbor_calls.cpp's.
#include "neighbor_calls.hpp"

#include "persistent_names.hpp"

#ifdef COLLREPRO_PERSISTENT

using collrepro::Collective;
using namespace collrepro::pmpi;

extern "C" int COLLREPRO_PERSISTENT(Neighbor_alltoall_init)(const void* sbuf, int scount, MPI_Datatype stype,
                                                            void* rbuf, int rcount, MPI_Datatype rtype,
                                                            MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return neighbor_regular_init_call(Collective::NeighborAlltoall,
                                    COLLREPRO_TEXT(COLLREPRO_PERSISTENT(Neighbor_alltoall_init)),
                                    COLLREPRO_LIBRARY(Neighbor_alltoall_init), sbuf, scount, stype, rbuf, rcount,
                                    rtype, comm, info, request);
}

extern "C" int COLLREPRO_PERSISTENT(Neighbor_allgather_init)(const void* sbuf, int scount, MPI_Datatype stype,
                                                             void* rbuf, int rcount, MPI_Datatype rtype,
                                                             MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return neighbor_regular_init_call(Collective::NeighborAllgather,
                                    COLLREPRO_TEXT(COLLREPRO_PERSISTENT(Neighbor_allgather_init)),
                                    COLLREPRO_LIBRARY(Neighbor_allgather_init), sbuf, scount, stype, rbuf, rcount,
                                    rtype, comm, info, request);
}

extern "C" int COLLREPRO_PERSISTENT(Neighbor_alltoallw_init)(const void* sbuf, const int scounts[],
                                                             const MPI_Aint sdispls[], const MPI_Datatype stypes[],
                                                             void* rbuf, const int rcounts[], const MPI_Aint rdispls[],
                                                             const MPI_Datatype rtypes[], MPI_Comm comm,
                                                             MPI_Info info, MPI_Request* request) {
  return neighbor_alltoallw_init_call(COLLREPRO_TEXT(COLLREPRO_PERSISTENT(Neighbor_alltoallw_init)),
                                      COLLREPRO_LIBRARY(Neighbor_alltoallw_init), sbuf, scounts, sdispls, stypes, rbuf,
                                      rcounts, rdispls, rtypes, comm, info, request);
}
#endif
