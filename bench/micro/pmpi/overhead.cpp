// The same inter-group algorithm called directly (the registry's Runner, as collbench calls it)
// and as MPI_Allgather (through libcollrepro_pmpi when it is preloaded with the algorithm
// forced, else the native call), on a 1 + 1 process intercommunicator. Each repetition:
// MPI_Barrier, time one call, the maximum over both ranks; prints the median over `reps`.
//   mpirun -n 2 pmpi_overhead direct ALGORITHM BYTES REPS
//   mpirun -n 2 [-x LD_PRELOAD=.. -x COLLREPRO_PMPI_FORCE=ALGORITHM] pmpi_overhead mpi BYTES REPS
// interpose/overhead runs the comparison.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "collrepro/group_pair.hpp"
#include "collrepro/intergroup.hpp"

namespace {

double median_of_max(const std::function<void()>& call, int reps) {
  std::vector<double> mine(static_cast<std::size_t>(reps)), most(mine.size());
  for (int i = 0; i < 5; ++i) call();  // warm-up
  for (int i = 0; i < reps; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    call();
    mine[static_cast<std::size_t>(i)] = MPI_Wtime() - t0;
  }
  MPI_Allreduce(mine.data(), most.data(), reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  std::nth_element(most.begin(), most.begin() + reps / 2, most.end());
  return most[static_cast<std::size_t>(reps / 2)];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const bool direct = argc == 5 && std::string(argv[1]) == "direct";
  if (size != 2 || !(direct || (argc == 4 && std::string(argv[1]) == "mpi"))) {
    if (rank == 0) std::fprintf(stderr, "usage: mpirun -n 2 pmpi_overhead direct ALGORITHM BYTES REPS | mpi BYTES REPS\n");
    MPI_Finalize();
    return 2;
  }
  const std::size_t bytes = std::strtoull(argv[direct ? 3 : 2], nullptr, 10);
  const int reps = std::atoi(argv[direct ? 4 : 3]);
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - rank, 3, &inter);
  std::vector<std::byte> send(bytes, std::byte{1}), recv(bytes);
  double t = 0;
  if (direct) {
    const auto* a = dynamic_cast<const collrepro::inter::InterAlgorithm*>(
        collrepro::Registry::global().find(collrepro::Collective::Allgather, argv[2]));
    if (!a) {
      if (rank == 0) std::fprintf(stderr, "pmpi_overhead: no inter-group allgather algorithm '%s'\n", argv[2]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const auto pair = collrepro::GroupPair::from_intercomm(inter);
    const auto args = collrepro::inter::Args::allgather(send.data(), bytes, recv.data(), 1, bytes);
    auto runner = a->prepare(pair, args);
    t = median_of_max([&] { runner->run(); }, reps);
  } else {
    const int n = static_cast<int>(bytes);
    t = median_of_max([&] { MPI_Allgather(send.data(), n, MPI_BYTE, recv.data(), n, MPI_BYTE, inter); }, reps);
  }
  if (rank == 0) std::printf("%.9f\n", t);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  MPI_Finalize();
  return 0;
}
