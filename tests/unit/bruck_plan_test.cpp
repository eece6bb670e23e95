// Exhaustive check of the Bruck Allgather plan (collrepro/bruck_plan.hpp) without MPI, for every
// n = 1..64: the rounds of all ranks are simulated together. Every message must be matched by
// the receiver's expectation (same peer, same blocks, in order), a rank sends only blocks it
// holds and receives only blocks it lacks, each round doubles what a rank holds (ceil(log2 n)
// rounds), and every rank ends with all n blocks, having received n - 1 (no block twice).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "collrepro/bruck_plan.hpp"

namespace collrepro::intra::bruck {
namespace {

void check_all_ranks(int n) {
  SCOPED_TRACE("n = " + std::to_string(n));
  std::vector<std::vector<Round>> plans;
  for (int r = 0; r < n; ++r) plans.push_back(plan(n, r));
  const auto expected_rounds = static_cast<std::size_t>(n > 1 ? std::ceil(std::log2(n)) : 0);
  std::vector<std::set<int>> held(static_cast<std::size_t>(n));
  std::vector<int> received(static_cast<std::size_t>(n), 0);
  for (int r = 0; r < n; ++r) {
    ASSERT_EQ(plans[static_cast<std::size_t>(r)].size(), expected_rounds);
    held[static_cast<std::size_t>(r)].insert(r);
  }
  for (std::size_t k = 0; k < expected_rounds; ++k) {
    std::vector<std::set<int>> next = held;
    for (int r = 0; r < n; ++r) {
      const Round& mine = plans[static_cast<std::size_t>(r)][k];
      ASSERT_EQ(mine.distance, 1 << k);
      const Round& theirs = plans[static_cast<std::size_t>(mine.send_to)][k];
      ASSERT_EQ(theirs.recv_from, r) << "rank " << r << " round " << k;
      ASSERT_EQ(theirs.recv_blocks, mine.send_blocks) << "rank " << r << " -> " << mine.send_to << " round " << k;
      for (int b : mine.send_blocks) {
        EXPECT_TRUE(held[static_cast<std::size_t>(r)].count(b)) << "rank " << r << " sends block " << b << " it lacks";
        EXPECT_FALSE(held[static_cast<std::size_t>(mine.send_to)].count(b))
            << "rank " << mine.send_to << " receives block " << b << " twice";
        next[static_cast<std::size_t>(mine.send_to)].insert(b);
        ++received[static_cast<std::size_t>(mine.send_to)];
      }
    }
    held = next;
    for (int r = 0; r < n; ++r)
      EXPECT_EQ(held[static_cast<std::size_t>(r)].size(), std::min<std::size_t>(std::size_t{2} << k, static_cast<std::size_t>(n)));
  }
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(held[static_cast<std::size_t>(r)].size(), static_cast<std::size_t>(n)) << "rank " << r;
    EXPECT_EQ(received[static_cast<std::size_t>(r)], n - 1) << "rank " << r;
  }
}

TEST(BruckPlan, EveryRankGetsEveryBlockOnceForN1To64) {
  for (int n = 1; n <= 64; ++n) check_all_ranks(n);
}

TEST(BruckPlan, CostTerms) {
  // Equal blocks: ceil(log2 n) rounds and (n - 1) k bytes.
  for (int n = 1; n <= 64; ++n) {
    const std::vector<std::size_t> blocks(static_cast<std::size_t>(n), 10);
    const Terms t = cost_terms(blocks);
    EXPECT_EQ(t.rounds, n > 1 ? std::ceil(std::log2(n)) : 0) << n;
    EXPECT_EQ(t.bytes, 10.0 * (n - 1)) << n;
  }
  // Unequal blocks, n = 3: in round 0 (d = 1) rank 2 receives block 0 (100 bytes), in round 1
  // (d = 2, one block) rank 1 does: each round costs its largest message.
  const std::vector<std::size_t> blocks{100, 1, 2};
  const Terms t = cost_terms(blocks);
  EXPECT_EQ(t.rounds, 2);
  EXPECT_EQ(t.bytes, 200);
}

}  // namespace
}  // namespace collrepro::intra::bruck
