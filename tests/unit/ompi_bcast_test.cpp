// The simulated Open MPI's broadcast plan (bench/sim/ompi_bcast.hpp): every tree over 1..130
// processes from every root is one spanning tree whose children (one formula) and parents
// (another) agree, with the depth its shape has; the decision table is well formed and covers
// every size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <queue>
#include <vector>

#include "ompi_bcast.hpp"

namespace ompi = collbench::sim::ompi;

namespace {

constexpr ompi::Bcast kTrees[] = {ompi::Bcast::linear, ompi::Bcast::chain, ompi::Bcast::binary_tree,
                                  ompi::Bcast::binomial, ompi::Bcast::knomial};

// The depth of the tree from `root` (processes reached counted in `reached`), or -1 on a
// process reached twice.
int depth_of(const std::vector<ompi::TreeNode>& nodes, int root, int& reached) {
  std::vector<int> depth(nodes.size(), -1);
  std::queue<int> todo;
  depth[static_cast<std::size_t>(root)] = 0;
  todo.push(root);
  reached = 1;
  int deepest = 0;
  while (!todo.empty()) {
    const int r = todo.front();
    todo.pop();
    for (const int c : nodes[static_cast<std::size_t>(r)].children) {
      if (depth[static_cast<std::size_t>(c)] >= 0) return -1;
      depth[static_cast<std::size_t>(c)] = depth[static_cast<std::size_t>(r)] + 1;
      deepest = std::max(deepest, depth[static_cast<std::size_t>(c)]);
      ++reached;
      todo.push(c);
    }
  }
  return deepest;
}

int ceil_log(int p, int base) {
  int d = 0;
  for (long long span = 1; span < p; span *= base) ++d;
  return d;
}

int most_nonzero_digits(int p, int base) {
  int most = 0;
  for (int v = 0; v < p; ++v) {
    int digits = 0;
    for (int x = v; x > 0; x /= base) digits += x % base != 0;
    most = std::max(most, digits);
  }
  return most;
}

int expected_depth(ompi::Bcast a, int p) {
  switch (a) {
    case ompi::Bcast::linear: return p > 1 ? 1 : 0;
    case ompi::Bcast::chain: return p - 1;
    case ompi::Bcast::binary_tree: return ceil_log(p + 1, 2) - 1;  // levels of 1, 2, 4, ...
    // Each hop adds one nonzero digit to the shifted rank (base 2, base 4): the deepest process
    // is the one with the most.
    case ompi::Bcast::binomial: return most_nonzero_digits(p, 2);
    case ompi::Bcast::knomial: return most_nonzero_digits(p, ompi::kKnomialRadix);
    default: return -1;
  }
}

}  // namespace

TEST(OmpiBcast, EveryTreeSpansFromEveryRoot) {
  for (const ompi::Bcast a : kTrees) {
    for (int p = 1; p <= 130; ++p) {
      for (int root = 0; root < p; ++root) {
        std::vector<ompi::TreeNode> nodes;
        for (int r = 0; r < p; ++r) nodes.push_back(ompi::tree_node(a, r, p, root));
        for (int r = 0; r < p; ++r) {
          const ompi::TreeNode& n = nodes[static_cast<std::size_t>(r)];
          ASSERT_EQ(n.parent < 0, r == root) << ompi::name(a) << " p=" << p << " root=" << root << " rank=" << r;
          if (r != root) {
            const auto& siblings = nodes[static_cast<std::size_t>(n.parent)].children;
            ASSERT_EQ(std::count(siblings.begin(), siblings.end(), r), 1)
                << ompi::name(a) << " p=" << p << " root=" << root << ": " << r << "'s parent " << n.parent
                << " does not send to it";
          }
          for (const int c : n.children) {
            ASSERT_TRUE(c >= 0 && c < p && c != root) << ompi::name(a) << " p=" << p;
            ASSERT_EQ(nodes[static_cast<std::size_t>(c)].parent, r)
                << ompi::name(a) << " p=" << p << " root=" << root << ": " << r << " sends to " << c
                << ", whose parent is " << nodes[static_cast<std::size_t>(c)].parent;
          }
        }
        int reached = 0;
        const int depth = depth_of(nodes, root, reached);
        ASSERT_EQ(reached, p) << ompi::name(a) << " p=" << p << " root=" << root;
        ASSERT_EQ(depth, expected_depth(a, p)) << ompi::name(a) << " p=" << p << " root=" << root;
      }
    }
  }
}

TEST(OmpiBcast, SendOrders) {
  // Linear: the root sends in communicator rank order; binomial: nearest child first;
  // 4-nomial: farthest first; binary tree: positions i + delta, i + 2 delta.
  EXPECT_EQ(ompi::tree_node(ompi::Bcast::linear, 2, 5, 2).children, (std::vector<int>{0, 1, 3, 4}));
  EXPECT_EQ(ompi::tree_node(ompi::Bcast::binomial, 0, 16, 0).children, (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(ompi::tree_node(ompi::Bcast::knomial, 0, 16, 0).children, (std::vector<int>{4, 8, 12, 1, 2, 3}));
  EXPECT_EQ(ompi::tree_node(ompi::Bcast::binary_tree, 1, 7, 0).children, (std::vector<int>{3, 5}));
  EXPECT_EQ(ompi::tree_node(ompi::Bcast::binary_tree, 6, 7, 0).parent, 2);
  EXPECT_EQ(ompi::tree_node(ompi::Bcast::chain, 0, 4, 3).parent, 3);
}

TEST(OmpiBcast, DecisionTableIsWellFormed) {
  int band = 0;
  std::size_t last_bound = 0;
  for (const ompi::BcastRule& rule : ompi::kBcastRules) {
    if (rule.comm_below != band) {
      ASSERT_GT(rule.comm_below, band) << "bands in increasing communicator sizes";
      ASSERT_TRUE(band == 0 || last_bound == ompi::kNoBound) << "band below " << band << " ends without a catch-all";
      band = rule.comm_below;
      last_bound = 0;
    }
    ASSERT_GT(rule.bytes_below, last_bound) << "band below " << band << ": byte bounds must increase";
    last_bound = rule.bytes_below;
  }
  EXPECT_EQ(band, ompi::kNoSizeBound);
  EXPECT_EQ(last_bound, ompi::kNoBound);
}

TEST(OmpiBcast, ChoicesTheValidationDependsOn) {
  // Root gathering's broadcasts on the 16-core node (allgatherv-arith-np14): the aggregate of the
  // other group, 7 x 64 KiB over 7 processes, 7 x 512 KiB over 7, 3 x 64 KiB over 11, 11 x 64 KiB over 3.
  EXPECT_EQ(ompi::bcast_choice(7, 7 * 65536), ompi::Bcast::linear);
  EXPECT_EQ(ompi::bcast_choice(7, 7 * 524288), ompi::Bcast::chain);
  EXPECT_EQ(ompi::bcast_choice(11, 3 * 65536), ompi::Bcast::linear);
  EXPECT_EQ(ompi::bcast_choice(3, 11 * 65536), ompi::Bcast::binomial);
  EXPECT_EQ(ompi::bcast_choice(3, 11 * 524288), ompi::Bcast::binary_tree);
  EXPECT_EQ(ompi::bcast_choice(1000, 20000), ompi::Bcast::split_binary_tree);
  EXPECT_EQ(ompi::bcast_choice(5000, 1 << 20), ompi::Bcast::scatter_allgather);
}
