// Construction cost of the derived datatypes the zero-copy algorithms build (seed 004 §3.3,
// Table 2): MPI_Type_create_struct of s blocks + commit + free, for the neighbourhood sizes
// of the paper (Moore d=2..5 r=1: 8, 26, 80, 242; d=3 r=3: 342; shells 3+7: 1396).
#include <mpi.h>

#include <benchmark/benchmark.h>

#include <vector>

namespace {

void BM_TypeCreateStruct(benchmark::State& state) {
  const int s = static_cast<int>(state.range(0));
  std::vector<int> lengths(static_cast<std::size_t>(s));
  std::vector<MPI_Aint> displs(static_cast<std::size_t>(s));
  std::vector<MPI_Datatype> types(static_cast<std::size_t>(s), MPI_BYTE);
  for (int i = 0; i < s; ++i) {
    lengths[static_cast<std::size_t>(i)] = 64 + i % 7;
    displs[static_cast<std::size_t>(i)] = static_cast<MPI_Aint>((s - 1 - i) * 128);  // reversed: not contiguous
  }
  for (auto _ : state) {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Type_create_struct(s, lengths.data(), displs.data(), types.data(), &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&t);
  }
  state.SetItemsProcessed(state.iterations() * s);
}
BENCHMARK(BM_TypeCreateStruct)->Arg(8)->Arg(26)->Arg(80)->Arg(242)->Arg(342)->Arg(1396);

}  // namespace
