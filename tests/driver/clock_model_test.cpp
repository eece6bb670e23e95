// The pure side of clock synchronization (bench/timing/clock_model.hpp): composition of
// linear clock models, the line fit, and the binomial tree of the hierarchical scheme.
#include "timing/clock_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

namespace collbench {
namespace {

// A hardware clock that reads (1 + drift) * t + offset at true time t.
struct TrueClock {
  double offset = 0, drift = 0;
  double read(double t) const { return (1 + drift) * t + offset; }
};

// The exact model from clock a's readings to clock b's.
ClockModel exact_between(const TrueClock& a, const TrueClock& b) {
  // t = (l - oa) / (1 + da);  b = (1 + db) * t + ob = slope * l + (ob - slope * oa)
  const double slope = (1 + b.drift) / (1 + a.drift);
  return {b.offset - slope * a.offset, slope - 1};
}

void expect_same_mapping(const ClockModel& got, const ClockModel& want, double local) {
  EXPECT_NEAR(got.drift, want.drift, 1e-15);
  EXPECT_NEAR(got.global(local), want.global(local), 1e-12 * (1 + std::fabs(want.global(local))));
}

TEST(ClockModel, ComposeIsFunctionComposition) {
  const ClockModel inner{3.5, 2e-6}, outer{-1.25, -7e-6};
  for (double l : {0.0, 1.0, 1234.5, -8.0}) EXPECT_NEAR(compose(outer, inner).global(l), outer.global(inner.global(l)), 1e-12);
  EXPECT_EQ(compose(ClockModel{}, inner).offset, inner.offset);
  EXPECT_EQ(compose(outer, ClockModel{}).drift, outer.drift);
}

TEST(ClockModel, KnownOffsetsAndDriftsThroughTreeGiveTheDirectModel) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> off(-50, 50), drift(-2e-5, 2e-5);
  for (int size : {1, 2, 3, 5, 8, 13, 64, 100, 1024}) {
    std::vector<TrueClock> clocks(static_cast<std::size_t>(size));
    for (auto& c : clocks) c = {off(rng), drift(rng)};
    std::vector<ClockModel> to_parent(clocks.size());
    for (int r = 1; r < size; ++r)
      to_parent[static_cast<std::size_t>(r)] = exact_between(clocks[static_cast<std::size_t>(r)],
                                                             clocks[static_cast<std::size_t>(binomial_parent(r))]);
    const auto to_root = compose_tree(to_parent);
    for (int r = 0; r < size; ++r) {
      SCOPED_TRACE("size " + std::to_string(size) + " rank " + std::to_string(r));
      const auto want = r == 0 ? ClockModel{} : exact_between(clocks[static_cast<std::size_t>(r)], clocks[0]);
      expect_same_mapping(to_root[static_cast<std::size_t>(r)], want, 1000.0);
    }
  }
}

TEST(ClockModel, BinomialTreeCoversEveryRankOncePerRound) {
  for (int size = 1; size <= 300; ++size) {
    SCOPED_TRACE("size " + std::to_string(size));
    const int rounds = binomial_rounds(size);
    EXPECT_LE(1 << rounds, 2 * std::max(size, 1));
    EXPECT_GE(1 << rounds, size);
    int edges = 0;
    std::vector<std::set<int>> busy(static_cast<std::size_t>(std::max(rounds, 1)));
    for (int r = 0; r < size; ++r) {
      for (int c : binomial_children(r, size)) {
        ++edges;
        EXPECT_EQ(binomial_parent(c), r);
        const int k = binomial_round(c);
        ASSERT_LT(k, rounds);
        // one pair per rank and round
        EXPECT_TRUE(busy[static_cast<std::size_t>(k)].insert(r).second);
        EXPECT_TRUE(busy[static_cast<std::size_t>(k)].insert(c).second);
      }
      if (r > 0) {
        EXPECT_LT(binomial_parent(r), r);
      }
    }
    EXPECT_EQ(edges, size - 1);
  }
}

TEST(ClockModel, FitLineRecoversADriftingClockAndFallsBackToOffsetOnly) {
  std::vector<FitPoint> points;
  for (int i = 0; i < 10; ++i) {
    const double x = 100 + 0.1 * i;
    points.push_back({x, 0.25 + 3e-6 * x, 1e-6});
  }
  const auto line = fit_line(points, 0.5);
  EXPECT_NEAR(line.drift, 3e-6, 1e-12);
  EXPECT_NEAR(line.offset, 0.25, 1e-9);
  const auto short_span = fit_line(points, 5.0);  // 0.9 s of history < 5 s: offset only
  EXPECT_EQ(short_span.drift, 0);
  EXPECT_NEAR(short_span.offset, 0.25 + 3e-6 * 100.45, 1e-9);
  EXPECT_EQ(fit_line({}, 0.5).offset, 0);
}

}  // namespace
}  // namespace collbench
