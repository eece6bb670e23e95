// The whole of collbench's main(), as a library function so that test programs (e.g. one
// with a deliberately broken algorithm registered, tests/driver) run exactly the same code.
#include "entry.hpp"

#include <mpi.h>

#include <cstdlib>
#include <iostream>

#include "config.hpp"
#include "driver.hpp"
#include "errors.hpp"
#include "interrupt.hpp"

namespace {

using namespace collbench;

// The rank as the launcher announces it, for messages printed before MPI_Init.
int launcher_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(var)) return std::atoi(v);
  return 0;
}

// Commands that need no MPI: --help, --list-algorithms, --get. Returns the exit code, or -1
// when MPI is needed.
int without_mpi(const std::optional<Options>& o) {
  const bool print = launcher_rank() == 0;
  if (!o) return kExitOk;  // --help was printed
  if (o->list_algorithms) {
    if (print) list_algorithms(std::cout);
    return kExitOk;
  }
  if (!o->get.empty()) {
    const Config c = parse_config(read_file(o->config_path), o->sets, o->config_path);
    if (print) std::cout << config_value(c, o->get) << "\n";
    return kExitOk;
  }
  return -1;
}

int run_mpi(const Options& o, InterruptWatch& watch) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    return run_driver(o, watch);
  } catch (const ConfigError& e) {
    if (rank == 0) std::cerr << "collbench: " << e.what() << std::endl;
    return kExitUsage;
  } catch (const ValidationError& e) {
    if (rank == 0) std::cerr << "collbench: " << e.what() << std::endl;
    return kExitValidation;
  } catch (const std::exception& e) {
    std::cerr << "collbench: error on rank " << rank << ": " << e.what() << std::endl;
    MPI_Abort(MPI_COMM_WORLD, kExitRuntime);
    return kExitRuntime;
  }
}

}  // namespace

namespace collbench {

int collbench_main(int argc, char** argv) {
  InterruptWatch watch;  // before MPI_Init: MPI's threads inherit the blocked signals
  std::optional<Options> options;
  try {
    options = parse_cli(argc, argv, launcher_rank() == 0);
    if (const int rc = without_mpi(options); rc >= 0) return rc;
  } catch (const ConfigError& e) {
    if (launcher_rank() == 0) std::cerr << "collbench: " << e.what() << std::endl;
    return kExitUsage;
  }
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
    std::cerr << "collbench: MPI_Init failed" << std::endl;
    return kExitRuntime;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int rc = run_mpi(*options, watch);
  MPI_Finalize();
  return rc;
}

}  // namespace collbench
