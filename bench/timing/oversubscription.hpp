// Oversubscription: how many ranks share one core, from the bindings in force when the run
// starts (hwloc: the cores each rank's cpuset touches). Pure: computed by rank 0 from the
// gathered bindings (topology.cpp), unit tested in tests/driver/oversubscription_test.cpp.
//
// Per node, the load is the ranks on it over the cores their cpusets touch together: 8
// unbound ranks on a 2-core node give 4 per core, and so do 8 ranks all bound to 2 cores of
// a 64-core node. Above 1 per core a rank waits for the OS scheduler whenever the others
// poll, and times measure scheduler ticks as much as the algorithm: the run says so in its
// metadata ("oversubscription"), at start and in every progress line.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collbench {

// One rank's place: its node index, host, and the logical indexes of the cores it may run on.
struct RankCores {
  int node = 0;
  std::string host;
  std::vector<int> cores;
};

struct Oversubscription {
  double ranks_per_core = 0;  // the largest over the nodes
  std::string host;           // of that node
  int ranks = 0, cores = 0;   // on that node
  bool oversubscribed() const { return ranks_per_core > 1.0; }
  nlohmann::json to_json() const;
  std::string warning() const;  // one sentence for stderr; empty when not oversubscribed
};

Oversubscription assess_oversubscription(const std::vector<RankCores>& ranks);

}  // namespace collbench
