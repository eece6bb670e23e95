// The memory check made before any buffer is allocated: every point's buffers must fit in the
// node's memory shared by the ranks on it (simulation: by every simulated rank, with folding).
#pragma once

#include <cstddef>

namespace collbench {

struct Config;
struct Plan;

// The memory of the node a rank runs on, shared by the ranks on that node.
struct MemoryBudget {
  std::size_t node_bytes = 0;  // /proc/meminfo MemTotal; 0 = unknown (no check)
  int ranks_on_node = 1;
  // Simulation: every simulated rank runs in this one process (ranks_on_node is the world), and
  // a buffer of at least folded_from bytes takes no memory (folded, bench/sim/fold_alloc.cpp);
  // 0 = nothing is folded.
  bool simulated = false;
  std::size_t folded_from = 0;
};

// How the simulation variant folds buffers: its threshold in bytes (0 = none). Registered at
// static initialization by bench/sim/fold_alloc.cpp; real-MPI builds have none.
using FoldThresholdHook = std::size_t (*)();
bool set_fold_threshold_hook(FoldThresholdHook hook);  // returns true

// This node's memory and its number of ranks (collective over MPI_COMM_WORLD).
MemoryBudget node_memory_budget();

// The bytes a rank's buffers of a point occupy: buffer_bytes, except that with folding each
// of its (send and receive) buffers of at least folded_from takes none, so at most two below it.
std::size_t resident_bytes(std::size_t buffer_bytes, const MemoryBudget& budget);

// Before any allocation: every point's resident buffers must fit in node_bytes / ranks_on_node;
// else ConfigError naming the sizes field, the point and the budget.
void check_memory_budget(const Config& c, const Plan& plan, const MemoryBudget& budget);

}  // namespace collbench
