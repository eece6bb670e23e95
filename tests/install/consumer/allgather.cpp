// MPI_Allgather on an intercommunicator of 1 + 1 processes, checked: the call the installed PMPI
// library serves when preloaded (COLLREPRO_PMPI_REPORT=1 makes it say so at MPI_Finalize).
#include <mpi.h>
#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank % 2, 7, &inter);
  int mine[4] = {rank, rank, rank, rank}, theirs[4] = {-1, -1, -1, -1};
  MPI_Allgather(mine, 4, MPI_INT, theirs, 4, MPI_INT, inter);
  int ok = theirs[0] == 1 - rank && theirs[3] == 1 - rank;
  if (!ok) std::fprintf(stderr, "allgather: rank %d received %d, expected %d\n", rank, theirs[0], 1 - rank);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return ok ? 0 : 1;
}
