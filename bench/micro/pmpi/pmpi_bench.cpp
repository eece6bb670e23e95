// Overhead of libcollrepro_pmpi (linked with -l, so every MPI_* call below goes through it), on
// one process (mpirun -n 1 build/<preset>/bench/micro/pmpi/pmpi_micro):
//   BM_Passthrough/library vs /direct: MPI_Allgather on MPI_COMM_SELF (an intracommunicator:
//     the library checks and passes the call on) against PMPI_Allgather; the difference is the
//     cost of looking at a call the library does not serve;
//   BM_NativeServed/library vs /direct: MPI_Neighbor_alltoall on a Cartesian communicator the
//     library does not serve (size 1: repeated neighbours): context lookup by attribute, the
//     cached topology verdict, the call count, then the MPI library's call;
//   BM_PlanLookup/s: building the key of an isomorphic call with s neighbours and finding its
//     plan among 16 cached ones (the work a repeated call does before running its plan).
#include <mpi.h>

#include <benchmark/benchmark.h>

#include <vector>

#include "context.hpp"

namespace collrepro::pmpi {
// The plan counter lives in the library (hidden there); the lookup benchmark keeps its own.
std::atomic<long>& live_plans() {
  static std::atomic<long> n{0};
  return n;
}
}  // namespace collrepro::pmpi

namespace {

void BM_Passthrough(benchmark::State& state) {
  const bool library = state.range(0) == 1;
  int send = 7, recv = 0;
  for (auto _ : state) {
    if (library)
      MPI_Allgather(&send, 1, MPI_INT, &recv, 1, MPI_INT, MPI_COMM_SELF);
    else
      PMPI_Allgather(&send, 1, MPI_INT, &recv, 1, MPI_INT, MPI_COMM_SELF);
    benchmark::DoNotOptimize(recv);
  }
  state.SetLabel(library ? "library" : "direct");
}
BENCHMARK(BM_Passthrough)->Arg(1)->Arg(0);

void BM_NativeServed(benchmark::State& state) {
  const bool library = state.range(0) == 1;
  int dims = 1, periodic = 1;
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_SELF, 1, &dims, &periodic, 0, &cart);
  int send[2] = {1, 2}, recv[2] = {0, 0};
  for (auto _ : state) {
    if (library)
      MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, cart);
    else
      PMPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, cart);
    benchmark::DoNotOptimize(recv);
  }
  MPI_Comm_free(&cart);
  state.SetLabel(library ? "library" : "direct");
}
BENCHMARK(BM_NativeServed)->Arg(1)->Arg(0);

void BM_PlanLookup(benchmark::State& state) {
  using namespace collrepro::pmpi;
  const auto s = static_cast<std::size_t>(state.range(0));
  std::vector<std::byte> send(s * 8), recv(s * 8);
  PlanCache<IsoKey, collrepro::iso::Args> cache(16);
  auto key_for = [&](std::size_t variant) {
    std::vector<std::size_t> counts(s, 8 + variant), displs(s);
    for (std::size_t i = 0; i < s; ++i) displs[i] = i * 8;
    return IsoKey{collrepro::Collective::NeighborAlltoall, send.data(), recv.data(), counts, displs, counts, displs};
  };
  for (std::size_t v = 0; v < 16; ++v) cache.insert(key_for(v), std::make_unique<Plan<collrepro::iso::Args>>());
  for (auto _ : state) {
    auto* plan = cache.find(key_for(15));  // the oldest: a full scan, as for a call alternating between many
    benchmark::DoNotOptimize(plan);
  }
}
BENCHMARK(BM_PlanLookup)->Arg(4)->Arg(26)->Arg(342);

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  MPI_Finalize();
  return 0;
}
