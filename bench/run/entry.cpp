// The whole of collbench's main(), as a library function so that test programs (e.g. one
// with a deliberately broken algorithm registered, tests/driver) run exactly the same code.
#include "run/entry.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "collrepro/mpi.hpp"
#include "config/config.hpp"
#include "run/driver.hpp"
#include "output/algorithm_list.hpp"
#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "families/plan.hpp"
#include "config/units.hpp"
#include "run/world.hpp"

namespace {

using namespace collbench;

// The rank as the launcher announces it, for messages printed before MPI_Init.
int launcher_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(var)) return std::atoi(v);
  return 0;
}

// "collbench: <message>" on stderr as one line written by one write(2): lines of several ranks
// (forwarded by the launcher) never interleave.
void print_error(const std::string& message) {
  std::cerr.flush();
  const std::string line = "collbench: " + one_line(message) + "\n";
  std::string_view rest = line;
  while (!rest.empty()) {
    const ssize_t n = ::write(STDERR_FILENO, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

// kExitOk once what was printed on stdout is written, else one line and kExitEnvironment.
int stdout_written(bool printed) {
  if (!printed) return kExitOk;
  errno = 0;
  std::cout.flush();
  if (std::cout) return kExitOk;
  print_error(io_error("write", "the standard output", errno ? errno : EIO,
                       "free space or choose another place to redirect it").what());
  return kExitEnvironment;
}

// Commands that need no MPI: --help, --list-algorithms, --get. Returns the exit code, or -1
// when MPI is needed.
int without_mpi(const std::optional<Options>& o) {
  const bool print = launcher_rank() == 0;
  if (!o) return kExitOk;  // --help was printed
  if (o->list_algorithms) {
    if (print) list_algorithms(std::cout, o->format);
    return stdout_written(print);
  }
  if (!o->get.empty()) {
    // The same checks as a run's parsing (those that need the process count come with the run).
    try {
      const Config c = parse_config(read_file(o->config_path), o->sets, o->config_path);
      const std::string value = config_value(c, o->get);
      if (print) std::cout << value << "\n";
      return stdout_written(print);
    } catch (const ConfigError& e) {
      if (print) print_error(e.what());
      return kExitUsage;
    }
  }
  return -1;
}


// A command-line error, reported once by rank 0 after MPI_Init. Every rank then waits in a
// barrier: were a rank to exit at once, the launcher would kill the others, possibly before
// rank 0 had printed the message (seen under load with Open MPI's mpirun).
int report_usage_error(const std::string& message) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) print_error(message);
  MPI_Barrier(MPI_COMM_WORLD);
  return kExitUsage;
}

int run_mpi(const Options& o, InterruptWatch& watch) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Errors every rank holds (the configuration, the plan, a validation verdict, rank 0's file
  // writes through on_root): rank 0 prints, every rank returns the code through MPI_Finalize.
  // Errors of a subset of ranks: each such rank prints one line with its rank (one write(2), so
  // lines never interleave) and MPI_Abort ends the job with the code.
  const auto local = [rank](const std::exception& e, int code) {
    print_error("rank " + std::to_string(rank) + ": " + e.what());
    MPI_Abort(MPI_COMM_WORLD, code);
    return code;
  };
  try {
    return run_driver(o, watch);
  } catch (const ConfigError& e) {
    if (rank == 0) print_error(e.what());
    return kExitUsage;
  } catch (const ValidationError& e) {
    if (rank == 0) print_error(e.what());
    return kExitValidation;
  } catch (const SharedError& e) {
    if (rank == 0) print_error(e.what());
    return e.code();
  } catch (const IoError& e) {
    return local(e, kExitEnvironment);
  } catch (const std::exception& e) {
    return local(e, kExitRuntime);
  }
}

}  // namespace

namespace collbench {

int collbench_main(int argc, char** argv) {
  InterruptWatch watch;  // before MPI_Init: MPI's threads inherit the blocked signals
  std::optional<Options> options;
  std::optional<std::string> usage_error;
  try {
    options = parse_cli(argc, argv, launcher_rank() == 0);
    if (const int rc = without_mpi(options); rc >= 0) return rc;
  } catch (const ConfigError& e) {
    usage_error = e.what();
  }
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
    print_error(usage_error.value_or("MPI_Init failed"));
    return usage_error ? kExitUsage : kExitRuntime;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int rc = usage_error ? report_usage_error(*usage_error) : run_mpi(*options, watch);
  MPI_Finalize();
  return rc;
}

}  // namespace collbench
