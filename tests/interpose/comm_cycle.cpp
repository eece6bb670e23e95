// Communicators freed and created again, many times: the library's per-communicator plans must
// go with them. Linked against libcollrepro_pmpi with -l (the way an application links it).
// Each round creates an intercommunicator and a periodic ring, calls MPI_Allgather and
// MPI_Neighbor_alltoall on them, checks that plans are alive, frees both and checks that
// none is left. Prints "comm_cycle: R rounds, at most P plans alive, 0 left" on rank 0.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" long collrepro_pmpi_live_plans(void);
extern "C" long collrepro_pmpi_live_contexts(void);

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
  long most = 0;
  for (int round = 0; round < rounds; ++round) {
    const int side = rank < size / 2 ? 0 : 1;
    MPI_Comm local, inter, ring;
    MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side == 0 ? size / 2 : 0, 5, &inter);
    int remote = 0;
    MPI_Comm_remote_size(inter, &remote);
    std::vector<int> send(4, rank), recv(4 * static_cast<std::size_t>(remote));
    MPI_Allgather(send.data(), 4, MPI_INT, recv.data(), 4, MPI_INT, inter);
    const int periodic = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &ring);
    std::vector<int> nsend{rank, rank}, nrecv(2);
    MPI_Neighbor_alltoall(nsend.data(), 1, MPI_INT, nrecv.data(), 1, MPI_INT, ring);
    const long alive = collrepro_pmpi_live_plans();
    if (alive > most) most = alive;
    MPI_Comm_free(&ring);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    if (collrepro_pmpi_live_plans() != 0 || collrepro_pmpi_live_contexts() != 0) {
      std::fprintf(stderr, "comm_cycle: rank %d round %d: %ld plans and %ld contexts left after the frees\n", rank,
                   round, collrepro_pmpi_live_plans(), collrepro_pmpi_live_contexts());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  if (most < 2) {
    std::fprintf(stderr, "comm_cycle: rank %d: the library kept %ld plans (expected one per communicator)\n", rank, most);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) std::printf("comm_cycle: %d rounds, at most %ld plans alive, 0 left\n", rounds, most);
  MPI_Finalize();
  return 0;
}
