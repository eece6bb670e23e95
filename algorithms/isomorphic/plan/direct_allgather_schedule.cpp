// torus-direct (allgather): the message-combining, zero-copy isomorphic allgather that sends
// straight along each dimension, over the prefix trie.
//
// Source: seed 004 (Träff et al. 2016), §5 (both operations were implemented as "torus
//   direct"; only the all-to-all appears in the figures); the zero-copy form is ours
//   (docs/algorithms/torus-direct.md).
// Cost: R_dir alpha + W_dir m beta, with R_dir = sum_j #{distinct nonzero c_j} steps and W_dir =
//   the number of trie edges with nonzero weight (one message per edge). Assumes direct links
//   along each dimension. Full Moore and the positive octant: W_dir = s.
// Cases: every neighbourhood, any dimension order (allgather_dimension_order by default). Level
//   j has one step per distinct nonzero value v of the level's dimension (ascending): every
//   node with a child v sends its block to R + v e_j. Repeated and zero offsets are completed
//   by the local step (prefix_trie.hpp).
// Errata: see direct_alltoall_schedule.cpp (shells rounds) and prefix_trie.hpp.
#include <algorithm>
#include <set>

#include "prefix_trie.hpp"

namespace collrepro::iso {

Schedule direct_allgather_schedule(const Neighborhood& n, std::span<const int> order) {
  PrefixTrie trie(n, order);
  std::vector<Step> steps;
  for (int level = 0; level < trie.levels(); ++level) {
    const auto& nodes = trie.nodes();
    std::vector<std::vector<int>> children;
    std::set<int> values;
    for (const auto& node : nodes) {
      children.push_back(trie.children(node));
      for (int v : children.back())
        if (v != 0) values.insert(v);
    }
    for (int v : values) {
      Step step{axis_offset(n.dims(), trie.dim(), v), {}, {}};
      for (std::size_t k = 0; k < nodes.size(); ++k)
        if (std::binary_search(children[k].begin(), children[k].end(), v))
          trie.forward(step, nodes[k], nodes[k].loc, v);
      steps.push_back(std::move(step));
    }
    trie.descend();
  }
  Schedule s = trie.finish();
  s.steps = std::move(steps);
  return s;
}

Schedule direct_allgather_schedule(const Neighborhood& n) {
  const auto order = allgather_dimension_order(n);
  return direct_allgather_schedule(n, order);
}

}  // namespace collrepro::iso
