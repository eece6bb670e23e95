#include "config/placement.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <utility>

#include "collrepro/contract_enums.hpp"
#include "collrepro/group_pair.hpp"
#include "base/errors.hpp"

namespace collbench {

namespace {

using collrepro::contract::Placement;

// The contract's spelling of a placement (the placement column).
std::string name(Placement p) { return std::string(collrepro::contract::name(p)); }

// Ranks sorted by `key`, then A takes the first p, B the next q.
template <class Key>
std::vector<int> fill_in_order(int p, int q, std::span<const RankLocality> ranks, Key key) {
  std::vector<int> order(ranks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return key(ranks[x]) < key(ranks[y]); });
  std::vector<int> sides(ranks.size(), -1);
  for (int i = 0; i < p + q; ++i) sides[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = i < p ? 0 : 1;
  return sides;
}

// The domains (by key) that hold ranks of both groups.
template <class Key>
std::size_t shared_domains(const std::vector<int>& sides, std::span<const RankLocality> ranks, Key key) {
  std::map<decltype(key(ranks[0])), int> seen;  // bit 1: A, bit 2: B
  for (std::size_t r = 0; r < ranks.size(); ++r)
    if (sides[r] >= 0) seen[key(ranks[r])] |= 1 << sides[r];
  return static_cast<std::size_t>(std::count_if(seen.begin(), seen.end(), [](const auto& kv) { return kv.second == 3; }));
}

PlacementResult by_package(int p, int q, std::span<const RankLocality> ranks, std::string note) {
  auto key = [](const RankLocality& l) { return std::pair(l.node, l.package); };
  const bool unbound = std::any_of(ranks.begin(), ranks.end(), [](const RankLocality& l) { return l.package < 0; });
  std::set<std::pair<int, int>> domains;
  for (const auto& l : ranks) domains.insert(key(l));
  std::set<int> nodes;
  for (const auto& l : ranks) nodes.insert(l.node);
  auto sep = note.empty() ? "" : "; ";
  if (unbound)
    return {collrepro::block_sides(static_cast<int>(ranks.size()), p, q), name(Placement::Block),
            note + sep + "ranks are not bound inside one package (set binding: core or bind with the launcher): block placement used"};
  if (domains.size() == nodes.size())
    return {collrepro::block_sides(static_cast<int>(ranks.size()), p, q), name(Placement::Block),
            note + sep + "one package per node: the groups share it (block placement used)"};
  PlacementResult r{fill_in_order(p, q, ranks, key), name(Placement::Sockets), note};
  if (const auto shared = shared_domains(r.sides, ranks, key))
    r.note += std::string(r.note.empty() ? "" : "; ") + std::to_string(shared) +
              " package(s) hold ranks of both groups (group sizes do not match package boundaries)";
  return r;
}

}  // namespace

const std::vector<std::string>& placement_names() {
  // enums.placement of the contract (the placement column)
  static const std::vector<std::string> names(collrepro::contract::kPlacementNames.begin(),
                                              collrepro::contract::kPlacementNames.end());
  return names;
}

PlacementResult place_groups(const std::string& placement, int p, int q, std::span<const RankLocality> ranks) {
  const int n = static_cast<int>(ranks.size());
  if (p < 1 || q < 1 || p + q > n)
    throw std::invalid_argument("groups " + std::to_string(p) + "/" + std::to_string(q) + " do not fit " +
                                std::to_string(n) + " processes");
  const auto kind = collrepro::contract::parse<Placement>(placement);
  if (!kind) throw std::invalid_argument("unknown placement " + quote(placement));
  switch (*kind) {
    case Placement::Block: return {collrepro::block_sides(n, p, q), name(Placement::Block), ""};
    case Placement::Interleaved: return {collrepro::interleaved_sides(n, p, q), name(Placement::Interleaved), ""};
    case Placement::Sockets: return by_package(p, q, ranks, "");
    case Placement::Nodes: break;
  }
  std::set<int> nodes;
  for (const auto& l : ranks) nodes.insert(l.node);
  if (nodes.size() < 2) return by_package(p, q, ranks, "one node: groups placed on disjoint packages instead of nodes");
  auto key = [](const RankLocality& l) { return l.node; };
  PlacementResult r{fill_in_order(p, q, ranks, key), name(Placement::Nodes), ""};
  if (const auto shared = shared_domains(r.sides, ranks, key))
    r.note = std::to_string(shared) + " node(s) hold ranks of both groups (group sizes do not match node boundaries)";
  return r;
}

}  // namespace collbench
