// collbench's main() (see main.cpp and bench/README.md for the exit codes).
#pragma once

#include <cstddef>

namespace collbench {

struct Config;
struct Plan;

// The memory of the node a rank runs on, shared by the ranks on that node.
struct MemoryBudget {
  std::size_t node_bytes = 0;  // /proc/meminfo MemTotal; 0 = unknown (no check)
  int ranks_on_node = 1;
};

// This node's memory and its number of ranks (collective over MPI_COMM_WORLD).
MemoryBudget node_memory_budget();

// Before any allocation: every point's buffers (PointShape::buffer_bytes) must fit in
// node_bytes / ranks_on_node; else ConfigError naming the sizes field, the point and the budget.
void check_memory_budget(const Config& c, const Plan& plan, const MemoryBudget& budget);

// Parses the command line, runs the driver under MPI (or a command without MPI) and
// returns the exit code.
int collbench_main(int argc, char** argv);

}  // namespace collbench
