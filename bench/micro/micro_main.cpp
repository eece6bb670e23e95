// main() of collmicro: MPI_Init around Google Benchmark (the datatype benchmarks call MPI).
// Run it as a single process: build/<preset>/bench/micro/collmicro
#include <mpi.h>

#include <benchmark/benchmark.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  int rc = 0;
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) rc = 1;
  else benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  MPI_Finalize();
  return rc;
}
