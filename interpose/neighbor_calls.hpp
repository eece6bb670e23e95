// The neighbourhood intercepts' entries for the persistent inits, which neighbor_init.cpp
// exports under the names the build found (MPI-4's MPI_Neighbor_*_init, or Open MPI 4.1's
// MPIX_Neighbor_*_init from mpi-ext.h).
#pragma once

#include <mpi.h>

#include "collrepro/registry.hpp"

namespace collrepro::pmpi {

// The MPI library's persistent inits (PMPI_ or PMPIX_), for the calls no algorithm serves:
// Neighbor_alltoall_init and Neighbor_allgather_init share one signature.
using NeighborRegularInit = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm, MPI_Info,
                                    MPI_Request*);
using NeighborAlltoallwInit = int (*)(const void*, const int[], const MPI_Aint[], const MPI_Datatype[], void*,
                                      const int[], const MPI_Aint[], const MPI_Datatype[], MPI_Comm, MPI_Info,
                                      MPI_Request*);

// The intercepts: on an isomorphic neighbourhood, the algorithm the rules choose for the
// persistent form builds its persistent schedule here and the application gets a request the
// library owns (requests.hpp); otherwise `library` makes the request. `c`: neighbor-alltoall or
// neighbor-allgather. `name` names the call in error lines.
int neighbor_regular_init_call(Collective c, const char* name, NeighborRegularInit library, const void* sbuf,
                               int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                               MPI_Comm comm, MPI_Info info, MPI_Request* request);
int neighbor_alltoallw_init_call(const char* name, NeighborAlltoallwInit library, const void* sbuf,
                                 const int scounts[], const MPI_Aint sdispls[], const MPI_Datatype stypes[],
                                 void* rbuf, const int rcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Info info, MPI_Request* request);

}  // namespace collrepro::pmpi
