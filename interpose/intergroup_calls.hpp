// The inter-group intercepts' entries for the persistent Allgather and Allgatherv, which
// allgather_init.cpp exports under the names the build found (MPI-4's MPI_Allgather(v)_init, or
// Open MPI 4.1's MPIX_Allgather(v)_init from mpi-ext.h).
#pragma once

#include <mpi.h>

namespace collrepro::pmpi {

// The MPI library's persistent Allgather init (PMPI_Allgather_init or PMPIX_Allgather_init),
// for the calls no algorithm serves.
using AllgatherInit = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm, MPI_Info,
                              MPI_Request*);

// The intercept: on an intercommunicator, the algorithm the rules choose for the persistent
// form builds its persistent schedule here and the application gets a request the library owns
// (requests.hpp); otherwise `library` makes the request. `name` names the call in error lines.
int allgather_init_call(const char* name, AllgatherInit library, const void* sbuf, int scount, MPI_Datatype stype,
                        void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request* request);

// The same for the persistent Allgatherv (PMPI_Allgatherv_init or PMPIX_Allgatherv_init).
using AllgathervInit = int (*)(const void*, int, MPI_Datatype, void*, const int*, const int*, MPI_Datatype, MPI_Comm,
                               MPI_Info, MPI_Request*);
int allgatherv_init_call(const char* name, AllgathervInit library, const void* sbuf, int scount, MPI_Datatype stype,
                         void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request* request);

}  // namespace collrepro::pmpi
