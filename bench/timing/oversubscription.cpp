#include "timing/oversubscription.hpp"

#include <iomanip>
#include <map>
#include <set>
#include <sstream>

namespace collbench {

Oversubscription assess_oversubscription(const std::vector<RankCores>& ranks) {
  struct Node {
    std::string host;
    int ranks = 0;
    std::set<int> cores;
  };
  std::map<int, Node> nodes;
  for (const RankCores& r : ranks) {
    Node& n = nodes[r.node];
    n.host = r.host;
    ++n.ranks;
    n.cores.insert(r.cores.begin(), r.cores.end());
  }
  Oversubscription worst;
  for (const auto& [index, n] : nodes) {
    const int cores = static_cast<int>(n.cores.size());
    const double load = cores > 0 ? static_cast<double>(n.ranks) / cores : static_cast<double>(n.ranks);
    if (load > worst.ranks_per_core) worst = {load, n.host, n.ranks, cores};
  }
  return worst;
}

nlohmann::json Oversubscription::to_json() const {
  return {{"ranks_per_core", ranks_per_core}, {"oversubscribed", oversubscribed()}, {"host", host},
          {"ranks", ranks}, {"cores", cores},
          {"method", "per node: ranks over the hwloc cores their bindings touch at start; the largest node"}};
}

std::string Oversubscription::warning() const {
  if (!oversubscribed()) return "";
  std::ostringstream o;
  o << "oversubscribed: " << ranks << " ranks share " << cores << " core"
    << (cores == 1 ? "" : "s") << " on " << host << " (" << std::setprecision(3) << ranks_per_core
    << " per core); the times measure the OS scheduler as much as the algorithms";
  return o.str();
}

}  // namespace collbench
