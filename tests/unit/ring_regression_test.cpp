// Regression trap (docs/errata.md, seed 000 §IV-E Algorithm 3): Algorithm 3 of seed 000 exactly
// as printed (with 003's line 58) leaves receivers without some messages at p = 64, q = 192, a
// size the paper ran; with 000's line 58 it sends between positions that are not ring
// neighbours.
// If this test starts failing because the printed algorithm "works", the transcription below
// was changed; if HalfDuplexRingSchedule tests fail after someone "fixed" the planner back
// to the printed #4-2, this test shows why the planner differs from the paper.
#include <gtest/gtest.h>

#include <algorithm>

#include "collrepro/ring_schedule.hpp"

namespace collrepro::ring {
namespace {

// The two extractions of seed 000 differ in line 58 of Algorithm 3 (stage 3, sequence #3):
// 003 prints the sender q/2 + i + 2j, 000 prints p/2 + i + 2j.
enum class Line58 { Of003, Of000 };

// Algorithm 3 as printed (lines 1-60), no correction: in #4-2 the sender 2j - i + q + 1 is not
// taken mod (p + q), the condition is 2j > 2i + p/2, and j is not capped at p - 1. Line 58 is
// 003's unless asked otherwise. A transfer from the non-existent position p + q is kept, so
// the replay reports it.
Schedule printed_algorithm3(int p, int q, Line58 line58 = Line58::Of003) {
  const int N = p + q, P = p / 2, Q = q / 2;
  auto mod = [N](int a) { return ((a % N) + N) % N; };
  auto ceil_half = [](int i) { return (i + 1) / 2; };
  Schedule s{p, q, p, {}};
  for (int i = 0; i <= P - 1; ++i) {
    auto& r = s.rounds.emplace_back();
    for (int j = P; j <= p - 1; ++j) r.push_back({j + i, j + i + 1, j, Sequence::S1});
    for (int j = 0; j <= P - 1; ++j) r.push_back({mod(j - i), mod(j - i - 1), j, Sequence::S2});
    for (int j = 0; j <= i - 1; ++j) r.push_back({P - i + 2 * j, P - i + 2 * j + 1, P - i + j, Sequence::S3});
    for (int j = P; j <= P + i - 1; ++j) r.push_back({2 * j - i - P + 1, 2 * j - i - P, j, Sequence::S4});
  }
  for (int i = 0; i <= Q - 1; ++i) {
    auto& r = s.rounds.emplace_back();
    for (int j = P; j <= p - 1; ++j) r.push_back({P + j + i, P + j + i + 1, j, Sequence::S1});
    for (int j = 0; j <= P - 1; ++j)
      if (i < Q - P) r.push_back({P + q - i + j, P + q - i + j - 1, j, Sequence::S2});
    for (int j = 0; j <= P - 1; ++j) r.push_back({2 * j + i, 2 * j + i + 1, j, Sequence::S3});
    for (int j = P + ceil_half(i); j <= p - 1; ++j) r.push_back({2 * j - i - p + 1, 2 * j - i - p, j, Sequence::S4_1});
    for (int j = P; j <= P + ceil_half(i) - 1; ++j)
      if (2 * j > 2 * i + P) r.push_back({2 * j - i + q + 1, 2 * j - i + q, j, Sequence::S4_2});
  }
  for (int i = 0; i <= P - 1; ++i) {
    auto& r = s.rounds.emplace_back();
    for (int j = P; j <= p - 1; ++j)
      if (j + i + 1 < P + Q) r.push_back({P + Q + j + i, P + Q + j + i + 1, j, Sequence::S1});
    for (int j = 1; j <= i; ++j) r.push_back({Q + p - i + 2 * j - 1, Q + p - i + 2 * j - 2, j - 1, Sequence::S2});
    for (int j = 0; j <= P - 1; ++j)
      r.push_back({(line58 == Line58::Of003 ? Q : P) + i + 2 * j, Q + i + 2 * j + 1, j, Sequence::S3});
  }
  return s;
}

TEST(HalfDuplexRingRegression, PrintedAlgorithm3LeavesReceiversIncompleteAt64x192) {
  const Replay printed = replay(printed_algorithm3(64, 192));
  EXPECT_FALSE(printed.ok());
  EXPECT_GT(printed.incomplete_receivers, 0) << printed.summary();
  EXPECT_EQ(printed.incomplete_receivers, 63) << "63 receivers miss messages (docs/errata.md)";
  // ... while the corrected planner completes every receiver in p + q/2 rounds.
  const Replay corrected = replay(halfduplex_ring_schedule(64, 192));
  EXPECT_TRUE(corrected.ok()) << corrected.summary();
}

TEST(HalfDuplexRingRegression, PrintedAlgorithm3FailsAtThePapersOtherRatio) {
  EXPECT_GT(replay(printed_algorithm3(256, 768)).incomplete_receivers, 0);
  EXPECT_GT(replay(printed_algorithm3(2, 6)).incomplete_receivers, 0);  // receiver 7 misses m1
}

// For Fig. 2's p = 4, q = 6 the printed algorithm happens to be complete, and the corrected
// one adds exactly one transfer: 0 -> 9 m2 (#4-2) in round 3.
TEST(HalfDuplexRingRegression, PrintedAndCorrectedDifferByOneTransferAtFigure2) {
  const Schedule printed = printed_algorithm3(4, 6), corrected = halfduplex_ring_schedule(4, 6);
  EXPECT_TRUE(replay(printed).ok()) << replay(printed).summary();
  ASSERT_EQ(printed.rounds.size(), corrected.rounds.size());
  for (std::size_t t = 0; t < printed.rounds.size(); ++t) {
    auto extra = corrected.rounds[t];
    std::erase_if(extra, [&](const Transfer& c) {
      return std::find(printed.rounds[t].begin(), printed.rounds[t].end(), c) != printed.rounds[t].end();
    });
    EXPECT_EQ(printed.rounds[t].size() + extra.size(), corrected.rounds[t].size()) << "round " << t;
    if (t == 3) {
      ASSERT_EQ(extra.size(), 1u);
      EXPECT_EQ(extra[0], (Transfer{0, 9, 2, Sequence::S4_2}));
    } else {
      EXPECT_TRUE(extra.empty()) << "round " << t;
    }
  }
}

// 000's line 58 names a sender p/2 + i + 2j that is not the receiver's ring neighbour when
// p != q (at 4/6: 2 -> 4 and 4 -> 6 in stage 3); 003's q/2 + i + 2j is.
TEST(HalfDuplexRingRegression, Line58Of000IsNotARingLinkWhenGroupSizesDiffer) {
  const Replay printed000 = replay(printed_algorithm3(4, 6, Line58::Of000));
  EXPECT_FALSE(printed000.ok());
  EXPECT_TRUE(std::any_of(printed000.violations.begin(), printed000.violations.end(),
                          [](const std::string& v) { return v.find("is not a ring link") != std::string::npos; }))
      << printed000.summary();
  EXPECT_TRUE(replay(printed_algorithm3(4, 6, Line58::Of003)).ok());
  EXPECT_TRUE(replay(printed_algorithm3(4, 4, Line58::Of000)).ok()) << "p = q: both readings agree";
}

}  // namespace
}  // namespace collrepro::ring
