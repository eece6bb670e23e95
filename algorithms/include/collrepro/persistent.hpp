// The library's persistent collectives, as the build found them: MPI-4's MPI_Allgather_init,
// Open MPI 4.1's MPIX_Allgather_init (the pcollreq extension, mpi-ext.h), or none. Which one is
// decided at configure time by compiling against the library's headers
// (algorithms/CMakeLists.txt: COLLREPRO_HAVE_MPI_ALLGATHER_INIT, COLLREPRO_HAVE_MPIX_ALLGATHER_INIT),
// never by the library's name; whether it works is probed at run time (capabilities.hpp).
// Without one, the calls below return MPI_ERR_OTHER and build no request.
#pragma once

#include <mpi.h>

namespace collrepro {

// "MPI_Allgather_init", "MPIX_Allgather_init (mpi-ext.h)" or "" (none in this build).
const char* persistent_collectives();

int allgather_init(const void* send, int send_count, MPI_Datatype send_type, void* recv, int recv_count,
                   MPI_Datatype recv_type, MPI_Comm comm, MPI_Request* request);
int allgatherv_init(const void* send, int send_count, MPI_Datatype send_type, void* recv, const int* recv_counts,
                    const int* displs, MPI_Datatype recv_type, MPI_Comm comm, MPI_Request* request);
int bcast_init(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request);
int gather_init(const void* send, int send_count, MPI_Datatype send_type, void* recv, int recv_count,
                MPI_Datatype recv_type, int root, MPI_Comm comm, MPI_Request* request);
int gatherv_init(const void* send, int send_count, MPI_Datatype send_type, void* recv, const int* recv_counts,
                 const int* displs, MPI_Datatype recv_type, int root, MPI_Comm comm, MPI_Request* request);

// The persistent neighbourhood collectives, found the same way (COLLREPRO_HAVE_MPI_NEIGHBOR_ALLTOALL_INIT,
// COLLREPRO_HAVE_MPIX_NEIGHBOR_ALLTOALL_INIT): "MPI_Neighbor_alltoall_init",
// "MPIX_Neighbor_alltoall_init (mpi-ext.h)" or "". Without one, the calls return MPI_ERR_OTHER.
const char* persistent_neighbor_collectives();
int neighbor_alltoall_init(const void* send, int send_count, MPI_Datatype send_type, void* recv, int recv_count,
                           MPI_Datatype recv_type, MPI_Comm comm, MPI_Request* request);
int neighbor_alltoallv_init(const void* send, const int* send_counts, const int* send_displs, MPI_Datatype send_type,
                            void* recv, const int* recv_counts, const int* recv_displs, MPI_Datatype recv_type,
                            MPI_Comm comm, MPI_Request* request);
int neighbor_allgather_init(const void* send, int send_count, MPI_Datatype send_type, void* recv, int recv_count,
                            MPI_Datatype recv_type, MPI_Comm comm, MPI_Request* request);
int neighbor_allgatherv_init(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                             const int* recv_counts, const int* displs, MPI_Datatype recv_type, MPI_Comm comm,
                             MPI_Request* request);
int neighbor_alltoallw_init(const void* send, const int* send_counts, const MPI_Aint* send_displs,
                            const MPI_Datatype* send_types, void* recv, const int* recv_counts,
                            const MPI_Aint* recv_displs, const MPI_Datatype* recv_types, MPI_Comm comm,
                            MPI_Request* request);

}  // namespace collrepro

#include <cstddef>
#include <vector>

namespace collrepro {

// Owned persistent requests (MPI_Send_init, MPI_Recv_init, allgather_init, ...): start_all()
// starts every one (MPI_Startall), wait_all() completes them (MPI_Waitall). The destructor waits
// for started ones and frees each (MPI_Request_free): never a leaked request.
class PersistentRequests {
 public:
  PersistentRequests() = default;
  ~PersistentRequests();
  PersistentRequests(const PersistentRequests&) = delete;
  PersistentRequests& operator=(const PersistentRequests&) = delete;

  MPI_Request* add() { return &reqs_.emplace_back(MPI_REQUEST_NULL); }
  void send_init(const void* buf, std::size_t bytes, int dest, int tag, MPI_Comm comm);
  void recv_init(void* buf, std::size_t bytes, int src, int tag, MPI_Comm comm);
  void start_all();
  void wait_all();
  bool empty() const { return reqs_.empty(); }

 private:
  std::vector<MPI_Request> reqs_;
  bool active_ = false;
};

}  // namespace collrepro
