// Open MPI 4.1.4's MPI_Bcast as the simulated Open MPI runs it: which algorithm the library
// picks for a communicator size and a message size, and the tree each algorithm sends along.
// Pure (no MPI); the executor is ompi_bcast() in bench/sim/bcast_choice.cpp, used under
// `simrun --coll-selector ompi`. Checked exhaustively in tests/unit/ompi_bcast_test.cpp.
//
// Source: Open MPI 4.1.4 (Debian's source package openmpi 4.1.4-3): the `tuned` component's
//   fixed decision for MPI_Bcast (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c) and the
//   trees of ompi/mca/coll/base/coll_base_topo.c, restated here from how they behave.
// Why: SimGrid 3.32's ompi selector asks the same questions but runs other algorithms for
//   several answers: Open MPI's basic linear broadcast as a pipelined linear one cut into
//   segments (NTSL), the chain as a segmented pipeline, the binary tree as a segmented
//   pipelined tree (NTSB). Open MPI's fixed decision passes a segment size of 0: every message
//   travels whole, and a process forwards it only once it holds all of it. On the 16-core node
//   (allgatherv-arith-np14, root gathering's broadcast phase) that made the simulation 90-110 %
//   slow where Open MPI chose linear and 58 % fast where it chose the chain
//   (results/sim/validation/README.md, "Phases").
// Cost (n bytes, p processes, unsegmented): linear (p - 1) sends from the root at once, which
//   share its link; chain (p - 1)(alpha + n beta); binary tree, binomial and 4-nomial: depth x
//   (alpha + n beta), with a process's children sharing its link.
// Cases: every communicator size and message size. The split binary tree (256-1023 processes,
//   16-32 KiB) and scatter + allgather (16-31 processes from 1 MiB; 1024 and more from 256 or
//   512 KiB) are not trees: the executor runs SimGrid's own versions of them.
// Errata: none; SimGrid's mapping of the decision's answers is what this file replaces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace collbench::sim::ompi {

enum class Bcast { linear, chain, binary_tree, binomial, knomial, split_binary_tree, scatter_allgather };

// One rule of the decision: below `comm_below` processes and `bytes_below` bytes. The rules of
// one communicator band run in increasing byte bounds; the last of a band has no bound.
struct BcastRule {
  int comm_below;
  std::size_t bytes_below;
  Bcast algorithm;
};

inline constexpr std::size_t kNoBound = SIZE_MAX;
inline constexpr int kNoSizeBound = INT32_MAX;
inline constexpr int kKnomialRadix = 4;  // Open MPI's coll_tuned_bcast_algorithm_knomial_radix default

// Open MPI 4.1.4's fixed decision (its algorithm 3, the pipeline, is a chain of one branch:
// with no segments the two are the same broadcast).
inline constexpr BcastRule kBcastRules[] = {
    {4, 32, Bcast::chain}, {4, 256, Bcast::binary_tree}, {4, 512, Bcast::chain}, {4, 1024, Bcast::knomial},
    {4, 32768, Bcast::linear}, {4, 131072, Bcast::binary_tree}, {4, 262144, Bcast::chain},
    {4, 524288, Bcast::linear}, {4, 1048576, Bcast::binomial}, {4, kNoBound, Bcast::binary_tree},
    {8, 64, Bcast::binary_tree}, {8, 128, Bcast::binomial}, {8, 2048, Bcast::binary_tree},
    {8, 8192, Bcast::binomial}, {8, 1048576, Bcast::linear}, {8, kNoBound, Bcast::chain},
    {16, 8, Bcast::knomial}, {16, 64, Bcast::binary_tree}, {16, 4096, Bcast::knomial},
    {16, 16384, Bcast::binary_tree}, {16, 32768, Bcast::binomial}, {16, kNoBound, Bcast::linear},
    {32, 4096, Bcast::knomial}, {32, 1048576, Bcast::binomial}, {32, kNoBound, Bcast::scatter_allgather},
    {64, 2048, Bcast::binomial}, {64, kNoBound, Bcast::knomial},
    {128, kNoBound, Bcast::knomial},
    {256, 2, Bcast::binomial}, {256, 16384, Bcast::binary_tree}, {256, 32768, Bcast::linear},
    {256, 65536, Bcast::binary_tree}, {256, kNoBound, Bcast::knomial},
    {1024, 16384, Bcast::knomial}, {1024, 32768, Bcast::split_binary_tree}, {1024, kNoBound, Bcast::knomial},
    {2048, 524288, Bcast::knomial}, {2048, kNoBound, Bcast::scatter_allgather},
    {4096, 262144, Bcast::knomial}, {4096, kNoBound, Bcast::scatter_allgather},
    {kNoSizeBound, 8192, Bcast::knomial}, {kNoSizeBound, 16384, Bcast::binary_tree},
    {kNoSizeBound, 262144, Bcast::knomial}, {kNoSizeBound, kNoBound, Bcast::scatter_allgather},
};

inline Bcast bcast_choice(int comm_size, std::size_t bytes) {
  for (const BcastRule& rule : kBcastRules)
    if (comm_size < rule.comm_below && bytes < rule.bytes_below) return rule.algorithm;
  return Bcast::scatter_allgather;  // unreachable: the last rule has no bounds
}

inline bool is_tree(Bcast a) { return a != Bcast::split_binary_tree && a != Bcast::scatter_allgather; }

// Where a process stands in a broadcast tree: the process it receives from (-1 at the root) and
// those it sends to, in the order it posts the sends. Ranks are the communicator's.
struct TreeNode {
  int parent = -1;
  std::vector<int> children;
};

namespace detail {

// Children in shifted ranks (the root is 0).
inline std::vector<int> linear_children(int v, int p) {
  std::vector<int> out;
  if (v == 0)
    for (int c = 1; c < p; ++c) out.push_back(c);
  return out;
}

inline std::vector<int> chain_children(int v, int p) {
  return v + 1 < p ? std::vector<int>{v + 1} : std::vector<int>{};
}

// A `fanout`-ary tree filled level by level, where the process at position i of level L
// (delta = fanout^L processes on it) has children i + delta, i + 2 delta, ...: with fanout 2,
// 0 -> {1, 2}, 1 -> {3, 5}, 2 -> {4, 6}.
inline std::vector<int> kary_children(int v, int p, int fanout) {
  long long delta = 1, up_to_level = 1;  // processes on this level, and on it and above
  while (v >= up_to_level) {
    delta *= fanout;
    up_to_level += delta;
  }
  std::vector<int> out;
  for (int i = 1; i <= fanout && v + delta * i < p; ++i) out.push_back(static_cast<int>(v + delta * i));
  return out;
}

// Binomial: v's children are v + 2^k for every 2^k above v's highest set bit, nearest first.
inline std::vector<int> binomial_children(int v, int p) {
  long long mask = 1;
  while (mask <= v) mask <<= 1;
  std::vector<int> out;
  for (; v + mask < p; mask <<= 1) out.push_back(static_cast<int>(v + mask));
  return out;
}

// Radix-r nomial: v's children are v + j r^k (j = 1 .. r - 1) for every r^k that divides v
// and is below the largest power of r dividing v; farthest first.
inline std::vector<int> knomial_children(int v, int p, int radix) {
  long long mask = 1;
  while (mask < p && v % (radix * mask) == 0) mask *= radix;
  std::vector<int> out;
  for (mask /= radix; mask > 0; mask /= radix)
    for (int j = 1; j < radix; ++j)
      if (v + mask * j < p) out.push_back(static_cast<int>(v + mask * j));
  return out;
}

// Parents, stated independently of the children above (the test checks that they agree).
inline int kary_parent(int v, int fanout) {
  if (v == 0) return -1;
  long long delta = 1, up_to_level = 1;
  while (v >= up_to_level) {
    delta *= fanout;
    up_to_level += delta;
  }
  // v sits on the level of `delta` processes; its parent is the one on the level above at
  // the same position modulo that level's size.
  const long long above = delta / fanout, start_above = up_to_level - delta - above;
  return static_cast<int>(start_above + (v - (up_to_level - delta)) % above);
}

inline int binomial_parent(int v) {
  if (v == 0) return -1;
  int high = 1;
  while (high * 2 <= v) high *= 2;
  return v - high;  // clear the highest set bit
}

inline int knomial_parent(int v, int radix) {
  if (v == 0) return -1;
  long long mask = 1;
  while (v % (radix * mask) == 0) mask *= radix;
  return static_cast<int>(v / (radix * mask) * (radix * mask));
}

}  // namespace detail

inline std::vector<int> shifted_children(Bcast a, int v, int p) {
  switch (a) {
    case Bcast::linear: return detail::linear_children(v, p);
    case Bcast::chain: return detail::chain_children(v, p);
    case Bcast::binary_tree: return detail::kary_children(v, p, 2);
    case Bcast::binomial: return detail::binomial_children(v, p);
    case Bcast::knomial: return detail::knomial_children(v, p, kKnomialRadix);
    default: return {};
  }
}

inline int shifted_parent(Bcast a, int v) {
  switch (a) {
    case Bcast::linear: return v == 0 ? -1 : 0;
    case Bcast::chain: return v - 1;
    case Bcast::binary_tree: return detail::kary_parent(v, 2);
    case Bcast::binomial: return detail::binomial_parent(v);
    case Bcast::knomial: return detail::knomial_parent(v, kKnomialRadix);
    default: return -1;
  }
}

// `rank`'s place in the tree of algorithm `a` (a tree: is_tree(a)) over `p` processes from `root`.
// Linear sends in communicator rank order, as Open MPI's basic linear broadcast does.
inline TreeNode tree_node(Bcast a, int rank, int p, int root) {
  const int v = (rank - root + p) % p;
  const auto actual = [&](int s) { return (s + root) % p; };
  TreeNode node;
  const int parent = shifted_parent(a, v);
  node.parent = parent < 0 ? -1 : actual(parent);
  for (const int c : shifted_children(a, v, p)) node.children.push_back(actual(c));
  if (a == Bcast::linear) {  // rank order, not distance from the root
    node.children.clear();
    if (v == 0)
      for (int r = 0; r < p; ++r)
        if (r != root) node.children.push_back(r);
  }
  return node;
}

inline const char* name(Bcast a) {
  switch (a) {
    case Bcast::linear: return "basic_linear";
    case Bcast::chain: return "chain";
    case Bcast::binary_tree: return "binary_tree";
    case Bcast::binomial: return "binomial";
    case Bcast::knomial: return "knomial";
    case Bcast::split_binary_tree: return "split_binary_tree";
    case Bcast::scatter_allgather: return "scatter_allgather";
  }
  return "?";
}

}  // namespace collbench::sim::ompi
