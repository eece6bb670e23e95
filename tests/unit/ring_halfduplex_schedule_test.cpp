// The halfduplex-ring planner (seed 000 §IV): hand-worked schedules, Algorithm 1
// verbatim for p = q, exhaustive replays of every even size, the paper's sizes, the
// odd-size extension, and the per-position view against the global schedule.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "collrepro/ring_schedule.hpp"

namespace collrepro::ring {
namespace {

using Round = std::vector<std::tuple<int, int, int>>;  // (from, to, message), sorted

Round sorted(const std::vector<Transfer>& transfers) {
  Round r;
  for (const Transfer& t : transfers) r.emplace_back(t.from, t.to, t.message);
  std::sort(r.begin(), r.end());
  return r;
}

// Every position's plan, computed per position (never from the global schedule), must be
// the global schedule's projection.
void expect_views_agree(const Schedule& s) {
  const auto projected = project(s);
  for (int x = 0; x < s.positions(); ++x) {
    const RankPlan own = halfduplex_ring_rank_plan(s.p, s.q, x);
    ASSERT_EQ(own.rounds.size(), s.rounds.size()) << "p=" << s.p << " q=" << s.q << " position " << x;
    for (std::size_t t = 0; t < own.rounds.size(); ++t)
      ASSERT_EQ(own.rounds[t], projected[static_cast<std::size_t>(x)].rounds[t])
          << "p=" << s.p << " q=" << s.q << " position " << x << " round " << t;
  }
}

int busy_rounds(const Schedule& s) {
  return static_cast<int>(std::count_if(s.rounds.begin(), s.rounds.end(), [](const auto& r) { return !r.empty(); }));
}

// ---- hand-worked schedules, transfer for transfer (Figs. 2 and 3 of seed 000) -----------

// One schedule as written by hand: one line per round, "round: src->dst:mX(#seq), ...", the
// sequence label where it matters.
struct Worked {
  std::vector<Round> rounds;
  std::map<std::tuple<int, int, int, int>, std::string> labels;  // (round, from, to, m) -> "#2"
};

Worked parse(const std::string& text) {
  Worked w;
  std::istringstream lines(text);
  const std::regex transfer(R"((\d+)->(\d+):m(\d+)(\((#[0-9-]+)\))?)");
  for (std::string line; std::getline(lines, line);) {
    if (line.find(':') == std::string::npos) continue;
    const int round = std::stoi(line.substr(0, line.find(':')));
    EXPECT_EQ(round, static_cast<int>(w.rounds.size()));
    Round r;
    const std::string body = line.substr(line.find(':') + 1);
    for (std::sregex_iterator it(body.begin(), body.end(), transfer), end; it != end; ++it) {
      const int a = std::stoi((*it)[1]), b = std::stoi((*it)[2]), m = std::stoi((*it)[3]);
      r.emplace_back(a, b, m);
      if ((*it)[5].matched) w.labels[{round, a, b, m}] = (*it)[5];
    }
    std::sort(r.begin(), r.end());
    w.rounds.push_back(r);
  }
  return w;
}

void expect_worked(int p, int q, const std::string& text) {
  const Worked want = parse(text);
  const Schedule got = halfduplex_ring_schedule(p, q);
  ASSERT_EQ(got.rounds.size(), want.rounds.size());
  for (std::size_t t = 0; t < got.rounds.size(); ++t) {
    EXPECT_EQ(sorted(got.rounds[t]), want.rounds[t]) << "p=" << p << " q=" << q << " round " << t;
    for (const Transfer& tr : got.rounds[t]) {
      const auto label = want.labels.find({static_cast<int>(t), tr.from, tr.to, tr.message});
      if (label != want.labels.end()) {
        EXPECT_EQ(to_string(tr.sequence), label->second) << "round " << t << ": " << tr.from << "->" << tr.to;
      }
    }
  }
}

TEST(HalfDuplexRingSchedule, WorkedScheduleAlgorithm1EqualGroups) {
  expect_worked(4, 4, R"(
0: 2->3:m2, 3->4:m3, 0->7:m0, 1->0:m1
1: 3->4:m2, 4->5:m3, 0->7:m1, 7->6:m0, 1->2:m1(#3)
2: 4->5:m2, 5->6:m3, 0->1:m0(#3), 2->3:m1(#3)
3: 5->6:m2, 6->7:m3, 1->2:m0(#3), 3->4:m1(#3)
4: 6->7:m2, 2->3:m0(#3), 4->5:m1(#3)
5: 6->5:m0(#2), 3->4:m0(#3), 5->6:m1(#3)
)");
}

TEST(HalfDuplexRingSchedule, WorkedScheduleCorrectedAlgorithm3Figure2) {
  expect_worked(4, 6, R"(
0: 2->3:m2, 3->4:m3, 0->9:m0(#2), 1->0:m1(#2)
1: 3->4:m2, 4->5:m3, 0->9:m1(#2), 9->8:m0(#2), 1->2:m1(#3), 2->1:m2(#4)
2: 4->5:m2, 5->6:m3, 8->7:m0, 9->8:m1, 0->1:m0(#3), 2->3:m1(#3), 1->0:m2(#4-1), 3->2:m3(#4-1)
3: 5->6:m2, 6->7:m3, 1->2:m0(#3), 3->4:m1(#3), 2->1:m3(#4-1), 0->9:m2(#4-2)
4: 6->7:m2, 7->8:m3, 2->3:m0(#3), 4->5:m1(#3), 1->0:m3(#4-1)
5: 7->8:m2, 8->9:m3, 3->4:m0(#3), 5->6:m1(#3)
6: 8->9:m2, 7->6:m0(#2), 4->5:m0(#3), 6->7:m1(#3)
)");
}

TEST(HalfDuplexRingSchedule, WorkedScheduleDerivedMoreSendersFigure3) {
  expect_worked(6, 4, R"(
0: 2->3:m2, 3->4:m3, 4->5:m4, 5->6:m5, 0->9:m0(#2), 1->0:m1(#2)
1: 3->4:m2, 4->5:m3, 5->6:m4, 6->7:m5, 0->9:m1(#2), 9->8:m0(#2), 1->2:m1(#3)
2: 4->5:m2, 5->6:m3, 6->7:m4, 7->8:m5, 0->1:m0(#3), 2->3:m1(#3)
3: 5->6:m2, 6->7:m3, 7->8:m4, 8->9:m5, 1->2:m0(#3), 3->4:m1(#3)
4: 6->7:m2, 7->8:m3, 8->9:m4, 2->3:m0(#3), 4->5:m1(#3)
5: 7->8:m2, 8->9:m3, 3->4:m0(#3), 5->6:m1(#3)
6: 8->9:m2, 4->5:m0(#3), 6->7:m1(#3)
7: 8->7:m0(#2), 5->6:m0(#3), 7->8:m1(#3)
)");
}

// ---- Algorithm 1 as printed (seed 000 §IV), for p = q -------------------------------------

std::vector<Round> printed_algorithm1(int p) {
  const int N = 2 * p, h = p / 2;
  auto mod = [N](int a) { return ((a % N) + N) % N; };
  std::vector<Round> rounds;
  for (int i = 0; i < h; ++i) {  // stage 1
    Round r;
    for (int j = h; j <= p - 1; ++j) r.emplace_back(j + i, j + i + 1, j);
    for (int j = 0; j <= h - 1; ++j) r.emplace_back(mod(j - i), mod(j - i - 1), j);
    for (int j = 0; j <= i - 1; ++j) r.emplace_back(h - i + 2 * j, h - i + 2 * j + 1, h - i + j);
    rounds.push_back(r);
  }
  for (int i = 0; i < h; ++i) {  // stage 2
    Round r;
    for (int j = h; j <= p - 1; ++j) r.emplace_back(h + j + i, h + j + i + 1, j);
    for (int j = 0; j <= h - 1; ++j) r.emplace_back(2 * j + i, 2 * j + i + 1, j);
    rounds.push_back(r);
  }
  for (int i = 0; i < h; ++i) {  // stage 3
    Round r;
    for (int j = h; j <= p - 1; ++j)
      if (p + j + i + 1 < 2 * p) r.emplace_back(p + j + i, p + j + i + 1, j);
    for (int j = 1; j <= i; ++j) r.emplace_back(3 * h - i + 2 * j - 1, 3 * h - i + 2 * j - 2, j - 1);
    for (int j = 0; j <= h - 1; ++j) r.emplace_back(h + i + 2 * j, h + i + 2 * j + 1, j);
    rounds.push_back(r);
  }
  for (auto& r : rounds) std::sort(r.begin(), r.end());
  return rounds;
}

TEST(HalfDuplexRingSchedule, EqualGroupsIsAlgorithm1Verbatim) {
  for (int p = 2; p <= 40; p += 2) {
    const Schedule s = halfduplex_ring_schedule(p, p);
    const auto want = printed_algorithm1(p);
    ASSERT_EQ(s.rounds.size(), want.size());
    for (std::size_t t = 0; t < want.size(); ++t) EXPECT_EQ(sorted(s.rounds[t]), want[t]) << "p=q=" << p;
  }
}

// ---- exhaustive replays ------------------------------------------------------------------

void expect_valid_even(int p, int q) {
  const Schedule s = halfduplex_ring_schedule(p, q);
  const Replay r = replay(s);
  EXPECT_TRUE(r.ok()) << "p=" << p << " q=" << q << ": " << r.summary();
  EXPECT_EQ(static_cast<int>(s.rounds.size()), p + q / 2) << "p=" << p << " q=" << q;
  EXPECT_EQ(r.idle_rounds, 0) << "p=" << p << " q=" << q;
  EXPECT_EQ(halfduplex_ring_rounds(p, q), p + q / 2);
  EXPECT_EQ(halfduplex_ring_busy_rounds(p, q), p + q / 2);
  // p >= q never delivers a message twice; p < q keeps Algorithm 3's few repeated #1
  // deliveries (e.g. 8 -> 9: m2 in round 6 for p = 4, q = 6).
  if (p >= q) {
    EXPECT_EQ(r.redundant, 0) << "p=" << p << " q=" << q;
  }
}

TEST(HalfDuplexRingSchedule, EveryEvenSizeUpTo40x80ReplaysCleanInPPlusHalfQRounds) {
  for (int p = 2; p <= 40; p += 2)
    for (int q = 2; q <= 80; q += 2) expect_valid_even(p, q);
}

TEST(HalfDuplexRingSchedule, PositionViewsEqualTheGlobalScheduleForEveryEvenSize) {
  for (int p = 2; p <= 40; p += 2)
    for (int q = 2; q <= 80; q += 2) expect_views_agree(halfduplex_ring_schedule(p, q));
}

TEST(HalfDuplexRingSchedule, PaperSizesReplayCleanAndViewsAgree) {
  // Fig. 4 g-l: 512/512, 256/768, 768/256 (1024 processes) and 128/128, 64/192, 192/64.
  for (auto [p, q] : {std::pair{512, 512}, {768, 256}, {256, 768}, {128, 128}, {64, 192}, {192, 64}}) {
    expect_valid_even(p, q);
    expect_views_agree(halfduplex_ring_schedule(p, q));
  }
}

TEST(HalfDuplexRingSchedule, RepeatedDeliveriesOfAlgorithm3AreThePapersOnes) {
  const Replay r = replay(halfduplex_ring_schedule(4, 6));
  EXPECT_EQ(r.redundant, 1);  // round 6: 8 -> 9 m2 (#1); 9 got m2 in round 3 through #4-2
}

// ---- odd sizes: the phantom-folding extension --------------------------------------------

TEST(HalfDuplexRingSchedule, EveryOddSizeUpTo40x80ReplaysCleanAndViewsAgree) {
  for (int p = 1; p <= 40; ++p)
    for (int q = 1; q <= 80; ++q) {
      if (p % 2 == 0 && q % 2 == 0) continue;
      const Schedule s = halfduplex_ring_schedule(p, q);
      const Replay r = replay(s);
      ASSERT_TRUE(r.ok()) << "p=" << p << " q=" << q << ": " << r.summary();
      const int pp = p + p % 2, qq = q + q % 2;
      EXPECT_EQ(static_cast<int>(s.rounds.size()), pp + qq / 2) << "p=" << p << " q=" << q;
      EXPECT_EQ(halfduplex_ring_rounds(p, q), pp + qq / 2);
      EXPECT_EQ(halfduplex_ring_busy_rounds(p, q), busy_rounds(s)) << "p=" << p << " q=" << q;
      expect_views_agree(s);
    }
}

TEST(HalfDuplexRingSchedule, OddPaperNeighboursReplayClean) {
  for (auto [p, q] : {std::pair{511, 513}, {767, 256}, {256, 767}, {127, 129}, {63, 193}, {193, 63}}) {
    const Schedule s = halfduplex_ring_schedule(p, q);
    EXPECT_TRUE(replay(s).ok()) << "p=" << p << " q=" << q << ": " << replay(s).summary();
  }
}

TEST(HalfDuplexRingSchedule, RejectsEmptyGroupsAndPositionsOffTheRing) {
  EXPECT_THROW(halfduplex_ring_schedule(0, 4), std::invalid_argument);
  EXPECT_THROW(halfduplex_ring_schedule(4, 0), std::invalid_argument);
  EXPECT_THROW(halfduplex_ring_rank_plan(4, 4, 8), std::invalid_argument);
  EXPECT_THROW(halfduplex_ring_rank_plan(4, 4, -1), std::invalid_argument);
}

}  // namespace
}  // namespace collrepro::ring
