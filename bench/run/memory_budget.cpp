#include "run/memory_budget.hpp"

#include <mpi.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "collrepro/mpi.hpp"
#include "config/units.hpp"
#include "base/errors.hpp"
#include "families/plan.hpp"

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

}  // namespace collbench
