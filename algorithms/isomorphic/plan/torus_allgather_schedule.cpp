// torus (allgather): the message-combining, zero-copy isomorphic allgather on a one-ported
// torus, routed over the prefix trie hop by hop.
//
// Source: seed 004 (Träff et al. 2016), §3.2 (Proposition 2, Fig. 1); the paper gives no
//   zero-copy pseudocode for it; this is ours (docs/algorithms/torus.md).
// Cost: D alpha + W_hop m beta, with the same D as the all-to-all and
//   W_hop = sum over trie nodes P [max(0, max ch(P)) + max(0, -min ch(P))] blocks: each node's
//   block travels to its farthest child on each side and drops the nearer children on the way.
//   Full Moore and the positive octant: W_hop = s (every block received once).
// Cases: every neighbourhood, any dimension order (the paper's heuristic by default,
//   allgather_dimension_order). Level j routes dimension order[j]: in step h of the phase of
//   sign +-1, every node whose farthest child on that side is beyond h moves its block one hop
//   to R +- e_j (one message for all of them). Repeated and zero offsets are completed by the
//   local step (prefix_trie.hpp).
// Errata (docs/errata.md, seed 004 §3.2 and Fig. 1): "W = the sum of all weighted path lengths in
//   the trie" is read as W_hop (volume-optimal), not W_edge = sum of |edge weights| (each child
//   routed separately); Fig. 1's "prefix of j-1 coordinates" is j; the dimension-order heuristic is
//   ambiguous, see allgather_dimension_order.
#include <algorithm>

#include "prefix_trie.hpp"

namespace collrepro::iso {
namespace {

// How far the node's block travels on the side `sign` of the current dimension.
int reach(const PrefixTrie& trie, const PrefixTrie::Node& node, int sign) {
  int r = 0;
  for (int v : trie.children(node)) r = std::max(r, sign * v);
  return r;
}

void route_phase(PrefixTrie& trie, int sign, std::vector<Step>& steps, int d) {
  const auto& nodes = trie.nodes();
  std::vector<int> far;
  std::vector<Part> at;
  for (const auto& node : nodes) {
    far.push_back(reach(trie, node, sign));
    at.push_back(node.loc);
  }
  const int phase_steps = far.empty() ? 0 : *std::max_element(far.begin(), far.end());
  for (int h = 0; h < phase_steps; ++h) {
    Step step{axis_offset(d, trie.dim(), sign), {}, {}};
    for (std::size_t k = 0; k < nodes.size(); ++k)
      if (far[k] > h) at[k] = trie.forward(step, nodes[k], at[k], sign * (h + 1));
    steps.push_back(std::move(step));
  }
}

}  // namespace

Schedule torus_allgather_schedule(const Neighborhood& n, std::span<const int> order) {
  PrefixTrie trie(n, order);
  std::vector<Step> steps;
  for (int level = 0; level < trie.levels(); ++level) {
    route_phase(trie, +1, steps, n.dims());
    route_phase(trie, -1, steps, n.dims());
    trie.descend();
  }
  Schedule s = trie.finish();
  s.steps = std::move(steps);
  return s;
}

Schedule torus_allgather_schedule(const Neighborhood& n) {
  const auto order = allgather_dimension_order(n);
  return torus_allgather_schedule(n, order);
}

}  // namespace collrepro::iso
