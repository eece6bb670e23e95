// The closed definitions of the round counts and volumes of seed 004 §3.1, §3.2
// and §5, computed directly from the offsets and independently of the schedule builders, so
// that the unit tests compare two computations. Pure (collplan).
//
// Erratum (seed 004 §3.1; docs/errata.md): the printed
// D = sum_{j=0}^{s-1} max_i (max(c_j,0) + max(-c_j,0)) has the wrong summation bound and one
// max over both parts; D below sums over j = 0..d-1 the maximum positive and the maximum
// negative coordinate separately (unit test isoCounts.PrintedDFormulaUndercountsTheRounds).
#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "collrepro/iso_schedule.hpp"

namespace collrepro::iso {
namespace {

// For trie level `level` (visiting `order`): prefix -> distinct child values.
std::map<std::vector<int>, std::set<int>> trie_level(const Neighborhood& n, std::span<const int> order,
                                                     std::size_t level) {
  std::map<std::vector<int>, std::set<int>> nodes;
  for (const Offset& c : n.offsets()) {
    std::vector<int> prefix;
    for (std::size_t l = 0; l < level; ++l) prefix.push_back(c[static_cast<std::size_t>(order[l])]);
    nodes[prefix].insert(c[static_cast<std::size_t>(order[level])]);
  }
  return nodes;
}

}  // namespace

Counts counts(const Neighborhood& n, std::span<const int> order) {
  Counts k;
  k.s = n.size();
  for (const Offset& c : n.offsets()) {
    k.V += static_cast<std::size_t>(norm1(c));
    k.V_dir += static_cast<std::size_t>(nnz(c));
  }
  for (std::size_t j = 0; j < static_cast<std::size_t>(n.dims()); ++j) {
    int up = 0, down = 0;
    std::set<int> nonzero;
    for (const Offset& c : n.offsets()) {
      up = std::max(up, c[j]);
      down = std::max(down, -c[j]);
      if (c[j] != 0) nonzero.insert(c[j]);
    }
    k.D += static_cast<std::size_t>(up + down);
    k.R_dir += nonzero.size();
  }
  for (std::size_t level = 0; level < order.size(); ++level)
    for (const auto& [prefix, children] : trie_level(n, order, level)) {
      k.W_hop += static_cast<std::size_t>(std::max(0, *children.rbegin()) + std::max(0, -*children.begin()));
      for (int v : children) {
        k.W_edge += static_cast<std::size_t>(std::abs(v));
        k.W_dir += v != 0 ? 1 : 0;
      }
    }
  return k;
}

Counts counts(const Neighborhood& n) {
  const auto order = allgather_dimension_order(n);
  return counts(n, order);
}

}  // namespace collrepro::iso
