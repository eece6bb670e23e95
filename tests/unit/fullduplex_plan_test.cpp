// Exhaustive checks of the pure plans of seed 001 Algorithms 1 and 2, without MPI: every
// rank of both groups is planned, sends are matched with receives, and the bytes are
// followed to the final Allgatherv, whose result must be the remote blocks in rank order.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <tuple>

#include "collrepro/exchange_plan.hpp"
#include "collrepro/partition.hpp"

namespace collrepro::inter {
namespace {

using Size = std::size_t;
using Blocks = std::vector<Size>;

// A byte's identity: (owning rank, offset in its block).
using Label = std::pair<int, Size>;

struct GroupPlans {
  std::vector<ExchangePlan> plans;  // one per rank of the group
};

// Follows one direction X -> Y: X's sends must equal Y's receives one to one; after the
// exchange each y holds labels at its receive offsets; the Allgatherv of y's group (every y
// computing the same counts/displs, tiling [0, K_X)) must give X's blocks in rank order.
void check_direction(const GroupPlans& x, const Blocks& x_blocks, const GroupPlans& y, const std::string& what) {
  const Size total = std::accumulate(x_blocks.begin(), x_blocks.end(), Size{0});
  std::map<std::tuple<int, int, Size>, Size> sent;  // (from, to, bytes) -> count
  std::vector<Size> prefix(x_blocks.size() + 1, 0);
  std::partial_sum(x_blocks.begin(), x_blocks.end(), prefix.begin() + 1);
  std::map<std::pair<int, int>, std::vector<Transfer>> by_pair;
  for (int from = 0; from < static_cast<int>(x.plans.size()); ++from) {
    Size covered = 0;
    for (const Transfer& s : x.plans[from].sends) {
      ASSERT_GT(s.bytes, 0u) << what << ": empty message planned";
      ASSERT_LE(s.offset + s.bytes, x_blocks[from]) << what;
      by_pair[{from, s.peer}].push_back(s);
      covered += s.bytes;
    }
    ASSERT_EQ(covered, x_blocks[from]) << what << ": sender " << from << " must send its whole block exactly once";
  }
  for (int to = 0; to < static_cast<int>(y.plans.size()); ++to) {
    const ExchangePlan& plan = y.plans[to];
    ASSERT_EQ(plan.gather_counts, y.plans[0].gather_counts) << what << ": ranks disagree on the Allgatherv";
    ASSERT_EQ(plan.gather_displs, y.plans[0].gather_displs) << what;
    std::vector<Label> result(total, Label{-1, 0});
    for (int r = 0, at = 0; r < static_cast<int>(plan.gather_counts.size()); ++r) {
      ASSERT_EQ(plan.gather_displs[r], static_cast<Size>(at)) << what << ": the Allgatherv pieces must tile in order";
      at += static_cast<int>(plan.gather_counts[r]);
      if (r + 1 == static_cast<int>(plan.gather_counts.size())) {
        ASSERT_EQ(static_cast<Size>(at), total) << what;
      }
    }
    Size received = 0;
    for (const Transfer& r : plan.recvs) {
      auto& queue = by_pair[{r.peer, to}];
      ASSERT_FALSE(queue.empty()) << what << ": receive from " << r.peer << " at " << to << " has no send";
      const Transfer s = queue.front();
      queue.erase(queue.begin());
      ASSERT_EQ(s.bytes, r.bytes) << what;
      // The piece must land inside my own Allgatherv piece.
      ASSERT_GE(r.offset, plan.gather_displs[to]) << what;
      ASSERT_LE(r.offset + r.bytes, plan.gather_displs[to] + plan.gather_counts[to]) << what;
      // And it must be the right bytes: result index = prefix of the sender + offset.
      ASSERT_EQ(r.offset, prefix[r.peer] + s.offset) << what << ": bytes of " << r.peer << " misplaced at " << to;
      received += r.bytes;
    }
    ASSERT_EQ(received, plan.gather_counts[to]) << what << ": rank " << to << " must fill its whole piece";
  }
  for (const auto& [key, queue] : by_pair) ASSERT_TRUE(queue.empty()) << what << ": unmatched send";
}

std::vector<ExchangePlan> alg1_group(int n_local, int n_remote, Size k_local, Size k_remote) {
  std::vector<ExchangePlan> out;
  for (int me = 0; me < n_local; ++me) out.push_back(plan_fullduplex_allgather(n_local, n_remote, me, k_local, k_remote));
  return out;
}

TEST(FullDuplexAllgatherPlan, EveryShapeDeliversEveryByteInRankOrder) {
  for (int p = 1; p <= 30; ++p)
    for (int q = 1; q <= 30; ++q)
      for (auto [ka, kb] : std::vector<std::pair<Size, Size>>{{0, 0}, {1, 1}, {7, 3}, {3, 7}, {0, 5}, {64, 1}, {2, 61}}) {
        const std::string what = "p=" + std::to_string(p) + " q=" + std::to_string(q) + " ka=" + std::to_string(ka) +
                                 " kb=" + std::to_string(kb);
        GroupPlans a{alg1_group(p, q, ka, kb)}, b{alg1_group(q, p, kb, ka)};
        check_direction(a, Blocks(p, ka), b, what + " A->B");
        check_direction(b, Blocks(q, kb), a, what + " B->A");
        if (HasFatalFailure()) return;
      }
}

TEST(FullDuplexAllgatherPlan, SubgroupsAndSegmentsFollowThePaper) {
  // 25:7 (seed 001 setting 2): ceil = 4, floor = 3, r = 4 subgroups of 4 and 3 of 3.
  const int p = 25, q = 7;
  std::vector<Size> members;
  for (int j = 0; j < q; ++j) members.push_back(plan_fullduplex_allgather(q, p, j, 100, 10).sends.size());
  EXPECT_EQ(members, (std::vector<Size>{4, 4, 4, 4, 3, 3, 3}));
  // Every a sends exactly one message (its block) and receives exactly one segment.
  for (int i = 0; i < p; ++i) {
    const auto plan = plan_fullduplex_allgather(p, q, i, 10, 100);
    ASSERT_EQ(plan.sends.size(), 1u);
    ASSERT_EQ(plan.recvs.size(), 1u);
    EXPECT_TRUE(plan.recvs[0].bytes == 25 || plan.recvs[0].bytes == 33 || plan.recvs[0].bytes == 34);
  }
  // k_B smaller than the subgroup: empty segments are not sent (b_0 has 4 members, k_B = 2).
  EXPECT_EQ(plan_fullduplex_allgather(q, p, 0, 2, 10).sends.size(), 2u);
  // p == q: whole blocks swap with the same-rank partner.
  const auto eq = plan_fullduplex_allgather(5, 5, 3, 8, 9);
  EXPECT_EQ(eq.sends, (std::vector<Transfer>{{3, 0, 8}}));
  EXPECT_EQ(eq.recvs, (std::vector<Transfer>{{3, 27, 9}}));
}

// ---- Algorithm 2 ----------------------------------------------------------------------

std::vector<ExchangePlan> alg2_group(const Blocks& mine, const Blocks& remote, bool ordered) {
  const int n_local = static_cast<int>(mine.size()), n_remote = static_cast<int>(remote.size());
  const Size total = std::accumulate(mine.begin(), mine.end(), Size{0});
  const Size remote_total = std::accumulate(remote.begin(), remote.end(), Size{0});
  std::vector<ExchangePlan> out;
  Size prefix = 0;
  for (int me = 0; me < n_local; ++me) {
    ExchangePlan plan;
    plan.sends = plan_allgatherv_sends(prefix, mine[me], total, n_remote);
    plan.recvs = plan_allgatherv_recvs(me, n_local, remote, ordered);
    plan_allgatherv_gather(n_local, remote_total, plan.gather_counts, plan.gather_displs);
    prefix += mine[me];
    out.push_back(std::move(plan));
  }
  return out;
}

Blocks distribution(int n, int kind, std::mt19937& rng) {
  Blocks v(static_cast<Size>(n));
  for (int i = 0; i < n; ++i) {
    switch (kind) {
      case 0: v[i] = 100; break;                                       // equal
      case 1: v[i] = 2 * (i + 1) * 3; break;                          // arithmetic 2(i+1)c
      case 2: v[i] = (i % 3 == 1) ? 37 : 0; break;                     // zero-laden
      case 3: v[i] = (i == n / 2) ? 5000 : 0; break;                   // one huge block
      case 4: v[i] = (i == 0) ? 1 : 0; break;                          // K < n
      default: v[i] = std::uniform_int_distribution<Size>(0, 50)(rng);  // random
    }
  }
  return v;
}

TEST(FullDuplexAllgathervPlan, PartitionCoversEveryByteOnceAndAssemblesInOrder) {
  std::mt19937 rng(20190415);
  for (int p = 1; p <= 24; ++p)
    for (int q = 1; q <= 24; ++q)
      for (int kind = 0; kind < 8; ++kind)
        for (bool ordered : {false, true}) {
          const Blocks a = distribution(p, kind, rng), b = distribution(q, (kind + 3) % 8, rng);
          const std::string what = "p=" + std::to_string(p) + " q=" + std::to_string(q) + " kind=" +
                                   std::to_string(kind) + (ordered ? " ordered" : "");
          GroupPlans pa{alg2_group(a, b, ordered)}, pb{alg2_group(b, a, ordered)};
          check_direction(pa, a, pb, what + " A->B");
          check_direction(pb, b, pa, what + " B->A");
          if (HasFatalFailure()) return;
        }
}

TEST(FullDuplexAllgathervPlan, ChunksAreBalancedAndSendersHitConsecutiveTargets) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    const int p = 1 + static_cast<int>(rng() % 40), q = 1 + static_cast<int>(rng() % 40);
    const Blocks a = distribution(p, static_cast<int>(rng() % 8), rng);
    const Size total = std::accumulate(a.begin(), a.end(), Size{0});
    Size prefix = 0;
    for (int i = 0; i < p; ++i) {
      const auto sends = plan_allgatherv_sends(prefix, a[i], total, q);
      for (std::size_t t = 1; t < sends.size(); ++t) {
        EXPECT_EQ(sends[t].peer, sends[t - 1].peer + 1) << "targets ascending and consecutive";
        EXPECT_EQ(sends[t].offset, sends[t - 1].offset + sends[t - 1].bytes) << "pieces tile the block in order";
      }
      prefix += a[i];
    }
    std::vector<Size> counts, displs;
    plan_allgatherv_gather(q, total, counts, displs);
    for (Size c : counts) EXPECT_TRUE(c == total / q || c == (total + q - 1) / q);
  }
}

// A multi-target sender sends to more than one receiver.
TEST(FullDuplexAllgathervPlan, EachReceiverHasAtMostTwoMultiTargetSendersAndTheOrderedRule) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    const int p = 1 + static_cast<int>(rng() % 30), q = 1 + static_cast<int>(rng() % 30);
    const Blocks a = distribution(p, static_cast<int>(rng() % 8), rng);
    const Size total = std::accumulate(a.begin(), a.end(), Size{0});
    std::vector<Size> targets(static_cast<Size>(p));
    for (Size i = 0, prefix = 0; i < a.size(); prefix += a[i], ++i)
      targets[i] = plan_allgatherv_sends(prefix, a[i], total, q).size();
    for (int b = 0; b < q; ++b) {
      const auto plain = plan_allgatherv_recvs(b, q, a, false);
      const auto ordered = plan_allgatherv_recvs(b, q, a, true);
      const auto multi = std::count_if(plain.begin(), plain.end(), [&](const Transfer& t) { return targets[t.peer] > 1; });
      EXPECT_LE(multi, 2) << "p=" << p << " q=" << q << " receiver " << b;
      ASSERT_EQ(plain.size(), ordered.size());
      if (plain.size() < 2) continue;
      EXPECT_EQ(ordered.back().peer, plain.front().peer) << "the low sender is received last";
      // The high sender goes first when its block continues past this chunk (seed 001 §4.1);
      // otherwise the senders come in ascending order from the second one.
      const int high = plain.back().peer;
      Size high_prefix = 0;
      for (int i = 0; i < high; ++i) high_prefix += a[i];
      const auto high_sends = plan_allgatherv_sends(high_prefix, a[high], total, q);
      const bool continues = high_sends.back().peer > b;
      EXPECT_EQ(ordered.front().peer, continues ? high : plain[1].peer) << "p=" << p << " q=" << q << " b=" << b;
    }
  }
}

// A worked example of the receive order of seed 001 §4.1 (p = 6, q = 4, k_A = 1,1,4,4,4,2:
// K_A = 16, every chunk 4 bytes; a_2, a_3, a_4 are multi-target senders). Fig. 3's caption
// (p = 6, q = 2) cannot be the prose's example, which needs q >= 4; this one fits the prose.
TEST(FullDuplexAllgathervPlan, WorkedExampleReceiveOrders) {
  const Blocks a = {1, 1, 4, 4, 4, 2};
  auto order = [&](int b) {
    std::vector<int> peers;
    for (const Transfer& t : plan_allgatherv_recvs(b, 4, a, true)) peers.push_back(t.peer);
    return peers;
  };
  EXPECT_EQ(order(0), (std::vector<int>{2, 1, 0}));
  EXPECT_EQ(order(1), (std::vector<int>{3, 2}));
  EXPECT_EQ(order(2), (std::vector<int>{4, 3}));
  EXPECT_EQ(order(3), (std::vector<int>{5, 4}));
  EXPECT_EQ(plan_allgatherv_sends(2, 4, 16, 4), (std::vector<Transfer>{{0, 0, 2}, {1, 2, 2}}));
}

}  // namespace
}  // namespace collrepro::inter
