#include "collrepro/persistent.hpp"

#include "collrepro/mpi.hpp"

#if (COLLREPRO_HAVE_MPIX_ALLGATHER_INIT && !COLLREPRO_HAVE_MPI_ALLGATHER_INIT) || \
    (COLLREPRO_HAVE_MPIX_NEIGHBOR_ALLTOALL_INIT && !COLLREPRO_HAVE_MPI_NEIGHBOR_ALLTOALL_INIT)
#include <mpi-ext.h>
#endif

namespace collrepro {

// The library's persistent collectives: MPI-4's names, or Open MPI 4.1's MPIX_ ones (one set of
// wrappers over whichever prefix the configure-time check found).
#if COLLREPRO_HAVE_MPI_ALLGATHER_INIT
#define COLLREPRO_PERSISTENT(name) MPI_##name
const char* persistent_collectives() { return "MPI_Allgather_init"; }
#elif COLLREPRO_HAVE_MPIX_ALLGATHER_INIT
#define COLLREPRO_PERSISTENT(name) MPIX_##name
const char* persistent_collectives() { return "MPIX_Allgather_init (mpi-ext.h)"; }
#endif

#ifdef COLLREPRO_PERSISTENT

int allgather_init(const void* send, int send_count, MPI_Datatype send_type, void* recv, int recv_count,
                   MPI_Datatype recv_type, MPI_Comm comm, MPI_Request* request) {
  return COLLREPRO_PERSISTENT(Allgather_init)(send, send_count, send_type, recv, recv_count, recv_type, comm,
                                              MPI_INFO_NULL, request);
}
int allgatherv_init(const void* send, int send_count, MPI_Datatype send_type, void* recv, const int* recv_counts,
                    const int* displs, MPI_Datatype recv_type, MPI_Comm comm, MPI_Request* request) {
  return COLLREPRO_PERSISTENT(Allgatherv_init)(send, send_count, send_type, recv, recv_counts, displs, recv_type,
                                               comm, MPI_INFO_NULL, request);
}
int bcast_init(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request) {
  return COLLREPRO_PERSISTENT(Bcast_init)(buffer, count, type, root, comm, MPI_INFO_NULL, request);
}
int gather_init(const void* send, int send_count, MPI_Datatype send_type, void* recv, int recv_count,
                MPI_Datatype recv_type, int root, MPI_Comm comm, MPI_Request* request) {
  return COLLREPRO_PERSISTENT(Gather_init)(send, send_count, send_type, recv, recv_count, recv_type, root, comm,
                                           MPI_INFO_NULL, request);
}
int gatherv_init(const void* send, int send_count, MPI_Datatype send_type, void* recv, const int* recv_counts,
                 const int* displs, MPI_Datatype recv_type, int root, MPI_Comm comm, MPI_Request* request) {
  return COLLREPRO_PERSISTENT(Gatherv_init)(send, send_count, send_type, recv, recv_counts, displs, recv_type, root,
                                            comm, MPI_INFO_NULL, request);
}
#undef COLLREPRO_PERSISTENT

#else

const char* persistent_collectives() { return ""; }

int allgather_init(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm, MPI_Request*) {
  return MPI_ERR_OTHER;
}
int allgatherv_init(const void*, int, MPI_Datatype, void*, const int*, const int*, MPI_Datatype, MPI_Comm,
                    MPI_Request*) {
  return MPI_ERR_OTHER;
}
int bcast_init(void*, int, MPI_Datatype, int, MPI_Comm, MPI_Request*) { return MPI_ERR_OTHER; }
int gather_init(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int, MPI_Comm, MPI_Request*) {
  return MPI_ERR_OTHER;
}
int gatherv_init(const void*, int, MPI_Datatype, void*, const int*, const int*, MPI_Datatype, int, MPI_Comm,
                 MPI_Request*) {
  return MPI_ERR_OTHER;
}

#endif

// The persistent neighbourhood collectives, likewise.
#if COLLREPRO_HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
#define COLLREPRO_PERSISTENT(name) MPI_##name
const char* persistent_neighbor_collectives() { return "MPI_Neighbor_alltoall_init"; }
#elif COLLREPRO_HAVE_MPIX_NEIGHBOR_ALLTOALL_INIT
#define COLLREPRO_PERSISTENT(name) MPIX_##name
const char* persistent_neighbor_collectives() { return "MPIX_Neighbor_alltoall_init (mpi-ext.h)"; }
#endif

#ifdef COLLREPRO_PERSISTENT

int neighbor_alltoall_init(const void* send, int send_count, MPI_Datatype send_type, void* recv, int recv_count,
                           MPI_Datatype recv_type, MPI_Comm comm, MPI_Request* request) {
  return COLLREPRO_PERSISTENT(Neighbor_alltoall_init)(send, send_count, send_type, recv, recv_count, recv_type, comm,
                                                      MPI_INFO_NULL, request);
}
int neighbor_alltoallv_init(const void* send, const int* send_counts, const int* send_displs, MPI_Datatype send_type,
                            void* recv, const int* recv_counts, const int* recv_displs, MPI_Datatype recv_type,
                            MPI_Comm comm, MPI_Request* request) {
  return COLLREPRO_PERSISTENT(Neighbor_alltoallv_init)(send, send_counts, send_displs, send_type, recv, recv_counts,
                                                       recv_displs, recv_type, comm, MPI_INFO_NULL, request);
}
int neighbor_allgather_init(const void* send, int send_count, MPI_Datatype send_type, void* recv, int recv_count,
                            MPI_Datatype recv_type, MPI_Comm comm, MPI_Request* request) {
  return COLLREPRO_PERSISTENT(Neighbor_allgather_init)(send, send_count, send_type, recv, recv_count, recv_type, comm,
                                                       MPI_INFO_NULL, request);
}
int neighbor_allgatherv_init(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                             const int* recv_counts, const int* displs, MPI_Datatype recv_type, MPI_Comm comm,
                             MPI_Request* request) {
  return COLLREPRO_PERSISTENT(Neighbor_allgatherv_init)(send, send_count, send_type, recv, recv_counts, displs,
                                                        recv_type, comm, MPI_INFO_NULL, request);
}
int neighbor_alltoallw_init(const void* send, const int* send_counts, const MPI_Aint* send_displs,
                            const MPI_Datatype* send_types, void* recv, const int* recv_counts,
                            const MPI_Aint* recv_displs, const MPI_Datatype* recv_types, MPI_Comm comm,
                            MPI_Request* request) {
  return COLLREPRO_PERSISTENT(Neighbor_alltoallw_init)(send, send_counts, send_displs, send_types, recv, recv_counts,
                                                       recv_displs, recv_types, comm, MPI_INFO_NULL, request);
}
#undef COLLREPRO_PERSISTENT

#else

const char* persistent_neighbor_collectives() { return ""; }

int neighbor_alltoall_init(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm, MPI_Request*) {
  return MPI_ERR_OTHER;
}
int neighbor_alltoallv_init(const void*, const int*, const int*, MPI_Datatype, void*, const int*, const int*,
                            MPI_Datatype, MPI_Comm, MPI_Request*) {
  return MPI_ERR_OTHER;
}
int neighbor_allgather_init(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm, MPI_Request*) {
  return MPI_ERR_OTHER;
}
int neighbor_allgatherv_init(const void*, int, MPI_Datatype, void*, const int*, const int*, MPI_Datatype, MPI_Comm,
                             MPI_Request*) {
  return MPI_ERR_OTHER;
}
int neighbor_alltoallw_init(const void*, const int*, const MPI_Aint*, const MPI_Datatype*, void*, const int*,
                            const MPI_Aint*, const MPI_Datatype*, MPI_Comm, MPI_Request*) {
  return MPI_ERR_OTHER;
}

#endif

}  // namespace collrepro

namespace collrepro {

PersistentRequests::~PersistentRequests() {
  if (active_) MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE);
  for (MPI_Request& r : reqs_)
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
}

void PersistentRequests::send_init(const void* buf, std::size_t bytes, int dest, int tag, MPI_Comm comm) {
  check(MPI_Send_init(buf, mpi_count(bytes, "MPI_Send_init count"), MPI_BYTE, dest, tag, comm, add()), "MPI_Send_init");
}

void PersistentRequests::recv_init(void* buf, std::size_t bytes, int src, int tag, MPI_Comm comm) {
  check(MPI_Recv_init(buf, mpi_count(bytes, "MPI_Recv_init count"), MPI_BYTE, src, tag, comm, add()), "MPI_Recv_init");
}

// One request goes through MPI_Start / MPI_Wait: MPICH 4.0.2's MPI_Startall / MPI_Waitall over
// a single request cost 40-300 ns more per call at 64 KiB-1 MiB (results/callforms/README.md).
void PersistentRequests::start_all() {
  if (reqs_.empty()) return;
  if (reqs_.size() == 1)
    check(MPI_Start(reqs_.data()), "MPI_Start");
  else
    check(MPI_Startall(static_cast<int>(reqs_.size()), reqs_.data()), "MPI_Startall");
  active_ = true;
}

void PersistentRequests::wait_all() {
  if (!active_) return;
  active_ = false;
  if (reqs_.size() == 1)
    check(MPI_Wait(reqs_.data(), MPI_STATUS_IGNORE), "MPI_Wait");
  else
    check(MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

}  // namespace collrepro
