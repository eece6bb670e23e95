// The ring Allgather baseline planner (seed 000 §IV-D, Table II): replays, round count,
// dummy blocks, and the per-position view against the global schedule.
#include <gtest/gtest.h>

#include "collrepro/ring_schedule.hpp"

namespace collrepro::ring {
namespace {

void expect_valid(int p, int q) {
  const Schedule s = ring_allgather_schedule(p, q);
  EXPECT_EQ(s.messages, p + q) << "receivers contribute dummy messages";
  EXPECT_EQ(static_cast<int>(s.rounds.size()), p + q - 1);
  EXPECT_EQ(ring_allgather_rounds(p, q), p + q - 1);
  const Replay r = replay(s);
  EXPECT_TRUE(r.ok()) << "p=" << p << " q=" << q << ": " << r.summary();
  EXPECT_EQ(r.redundant, 0);
  EXPECT_EQ(r.transfers, (p + q) * (p + q - 1)) << "every position sends in every round";
  const auto projected = project(s);
  for (int x = 0; x < p + q; ++x) {
    const RankPlan own = ring_allgather_rank_plan(p, q, x);
    ASSERT_EQ(own.rounds.size(), s.rounds.size());
    for (std::size_t t = 0; t < own.rounds.size(); ++t)
      ASSERT_EQ(own.rounds[t], projected[static_cast<std::size_t>(x)].rounds[t])
          << "p=" << p << " q=" << q << " position " << x << " round " << t;
  }
}

TEST(RingAllgatherSchedule, EveryEvenSizeUpTo40x80) {
  for (int p = 2; p <= 40; p += 2)
    for (int q = 2; q <= 80; q += 2) expect_valid(p, q);
}

TEST(RingAllgatherSchedule, SmallOddSizes) {
  for (int p = 1; p <= 13; ++p)
    for (int q = 1; q <= 13; ++q) expect_valid(p, q);
}

TEST(RingAllgatherSchedule, PaperSizes) {
  for (auto [p, q] : {std::pair{512, 512}, {768, 256}, {256, 768}}) expect_valid(p, q);
}

TEST(RingAllgatherSchedule, RoundZeroSendsOwnBlocksToTheRight) {
  const Schedule s = ring_allgather_schedule(2, 3);
  ASSERT_FALSE(s.rounds.empty());
  for (const Transfer& t : s.rounds[0]) {
    EXPECT_EQ(t.message, t.from);
    EXPECT_EQ(t.to, (t.from + 1) % 5);
  }
  EXPECT_THROW(ring_allgather_schedule(0, 3), std::invalid_argument);
  EXPECT_THROW(ring_allgather_rank_plan(2, 3, 5), std::invalid_argument);
}

}  // namespace
}  // namespace collrepro::ring
