// The whole of collbench's main(), as a library function so that test programs (e.g. one
// with a deliberately broken algorithm registered, tests/driver) run exactly the same code.
#include "run/entry.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "collrepro/mpi.hpp"
#include "config/config.hpp"
#include "run/driver.hpp"
#include "run/errors.hpp"
#include "run/interrupt.hpp"
#include "run/plan.hpp"
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

namespace {
FoldThresholdHook fold_threshold_hook = nullptr;
}  // namespace

bool set_fold_threshold_hook(FoldThresholdHook hook) {
  fold_threshold_hook = hook;
  return true;
}

// This node's memory and the ranks sharing it (collective).
MemoryBudget node_memory_budget() {
  MemoryBudget b;
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  while (meminfo >> key >> kib)
    if (key == "MemTotal:") {
      b.node_bytes = kib * 1024;
      break;
    } else meminfo.ignore(256, '\n');
  MPI_Comm node;
  collrepro::check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  collrepro::check(MPI_Comm_size(node, &b.ranks_on_node), "MPI_Comm_size");
  MPI_Comm_free(&node);
  if (fold_threshold_hook) {  // simulated: the real node holds every rank
    b.simulated = true;
    b.folded_from = fold_threshold_hook();
    collrepro::check(MPI_Comm_size(MPI_COMM_WORLD, &b.ranks_on_node), "MPI_Comm_size");
  }
  return b;
}

std::size_t resident_bytes(std::size_t buffer_bytes, const MemoryBudget& b) {
  return b.folded_from == 0 ? buffer_bytes : std::min(buffer_bytes, 2 * b.folded_from);
}

void check_memory_budget(const Config& c, const Plan& plan, const MemoryBudget& b) {
  if (b.node_bytes == 0) return;  // unknown: nothing to check against
  const std::size_t per_rank = b.node_bytes / static_cast<std::size_t>(std::max(1, b.ranks_on_node));
  for (std::size_t id = 0; id < plan.size(); ++id) {
    const Candidate& p = plan.point(id);
    const std::size_t needed = resident_bytes(p.shape->buffer_bytes(), b);
    if (needed <= per_rank) continue;
    throw config_error(c.sweeps[p.sweep].sizes_field,
                       "= " + format_bytes(p.shape->msg_bytes()) + ": point " + std::to_string(id) + " (" +
                           p.algorithm->info().name + ", " + p.shape->describe() + ") needs " + format_memory(needed) +
                           " of buffers per rank, more than the budget of " + format_memory(per_rank) + " per rank (" +
                           format_memory(b.node_bytes) + " of memory on this node, /proc/meminfo, for " +
                           std::to_string(b.ranks_on_node) +
                           (b.simulated ? " simulated ranks): use smaller sizes, fewer ranks or a lower simrun --fold"
                                        : " ranks): use smaller sizes or fewer ranks per node"));
  }
}

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
