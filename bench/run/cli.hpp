// The command line of collbench (a contract other tools depend on; see bench/README.md):
//   collbench CONFIG.yaml [--out DIR] [--launch L] [--slice S/T] [--set key=value]...
//             [--dry-run [--format text|csv] [--nprocs N]] [--quiet] [--list-algorithms [--format text|csv|json]]
//             [--get KEY] [--clock-check SECONDS]
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace collbench {

struct Options {
  std::string config_path;
  std::string out;  // empty: results/<experiment>/<mpi_impl>-<mpi_version>
  int launch = 0;
  std::optional<std::pair<int, int>> slice;  // (S, T), 0 <= S < T
  std::vector<std::string> sets;
  bool dry_run = false;
  std::string format = "text";
  std::optional<int> nprocs;  // dry-run only: plan for N processes
  bool quiet = false;
  bool list_algorithms = false;
  std::string get;  // print one effective config value and exit
  double clock_check = -1;  // >= 0: synchronize the clocks, report, check again this many seconds later, exit
  std::string command_line;
};

// Throws ConfigError on bad usage. Returns nullopt after printing --help (exit 0).
std::optional<Options> parse_cli(int argc, char** argv, bool print);

}  // namespace collbench
