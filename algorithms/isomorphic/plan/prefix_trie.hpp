// The prefix trie of seed 004 §3.2 (Fig. 1) as a routing state for the allgather schedules,
// shared by the torus (hop-by-hop) and the torus-direct allgather. Pure (collplan).
//
// The neighbours are sorted lexicographically by their coordinates in the visiting order of the
// dimensions. A level-j node is a run of neighbours sharing the first j (visited) coordinates,
// its prefix P; at process R its block is the one that originates at R ⊖ P̂ (P padded with
// zeros), and `loc` says where R holds it. Routing level j moves each node's block along the
// level's dimension; reaching the position of a child value v gives the child's block for free.
//
// Where a received block goes: if some neighbour C^i0 equals the padded child prefix, the block
// is final and goes to recvbuf[i0] (first such i0), from where later levels may still forward
// it (it is never overwritten); otherwise into a fresh interbuf slot, written exactly once. A
// child with value 0 keeps its parent's location. After the last level, the local step copies
// the leaves that were not received in place: repeated offsets (recvbuf[i0] -> recvbuf[i]) and
// the zero offset (sendbuf -> recvbuf[i]); the paper does not cover either (docs/algorithms/torus.md).
// Figure 1's caption says a level-j node shares "j-1" coordinates: with the root at level 0 it
// is j (erratum, docs/errata.md).
#pragma once

#include <span>
#include <vector>

#include "collrepro/iso_schedule.hpp"

namespace collrepro::iso {

class PrefixTrie {
 public:
  struct Node {
    std::size_t begin = 0, end = 0;  // run of sorted neighbours sharing the prefix
    Part loc;                        // where this process holds the node's block
  };

  // `order`: the dimensions in visiting order (a permutation of 0..d-1).
  PrefixTrie(const Neighborhood& n, std::span<const int> order);

  int levels() const { return static_cast<int>(order_.size()); }
  int level() const { return level_; }
  int dim() const { return order_[static_cast<std::size_t>(level_)]; }  // dimension of this level
  const std::vector<Node>& nodes() const { return nodes_; }             // canonical (sorted) order
  // Distinct values of the current dimension among the node's neighbours, ascending.
  std::vector<int> children(const Node& node) const;

  // Adds one part to `step`: the node's block, now at `from`, arrives at relative position
  // `value` of the current dimension. Returns where it was received.
  Part forward(Step& step, const Node& node, Part from, int value);
  // Ends the current level: the children become the nodes.
  void descend();
  // After the last level: adds the local copies and returns the schedule.
  Schedule finish();

 private:
  int coordinate(std::size_t sorted_pos, int dim) const;
  std::pair<std::size_t, std::size_t> child_run(const Node& node, int value) const;
  Part slot_for(std::size_t begin, std::size_t end);

  const Neighborhood& n_;
  std::vector<int> order_;
  std::vector<std::size_t> sorted_;  // neighbour indices, lexicographic in visiting order, stable
  int level_ = 0;
  std::vector<Node> nodes_, children_;
  Schedule schedule_;
};

}  // namespace collrepro::iso
