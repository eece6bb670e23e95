// Arrival patterns (bench/timing/arrival.hpp): the pure delay function, the first and last arrival
// rank 0 recomputes, the median over the kept repetitions, and the configuration's arrival key
// with its refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "timing/arrival.hpp"
#include "config/config.hpp"
#include "error_of.hpp"
#include "timing/stats.hpp"

using namespace collbench;

namespace {

Arrival make(ArrivalPattern p, double max = 200e-6, std::uint64_t seed = 0) { return Arrival{p, max, seed}; }

const std::vector<int> kSizes = {1, 2, 3, 4, 7, 16, 1000};

}  // namespace

TEST(Arrival, NoneStartsEveryRankAtOnce) {
  for (int size : kSizes)
    for (int r = 0; r < size; ++r) EXPECT_EQ(arrival_delay(Arrival{}, r, size, 5), 0.0);
  const ArrivalSpan s = arrival_span(Arrival{}, 16, 3);
  EXPECT_EQ(s.first, 0.0);
  EXPECT_EQ(s.last, 0.0);
}

TEST(Arrival, OneLateDelaysOnlyTheLastRank) {
  const Arrival a = make(ArrivalPattern::OneLate, 1e-4);
  for (int size : kSizes)
    for (int r = 0; r < size; ++r) EXPECT_EQ(arrival_delay(a, r, size, 0), r == size - 1 ? 1e-4 : 0.0) << size << " " << r;
  EXPECT_EQ(arrival_span(a, 4, 0).first, 0.0);
  EXPECT_EQ(arrival_span(a, 4, 0).last, 1e-4);
  EXPECT_EQ(arrival_span(a, 1, 0).first, 1e-4);  // one rank: it is the last, and the first
}

TEST(Arrival, LinearRisesFromZeroToMax) {
  const Arrival a = make(ArrivalPattern::Linear, 3e-4);
  EXPECT_DOUBLE_EQ(arrival_delay(a, 0, 4, 0), 0.0);
  EXPECT_DOUBLE_EQ(arrival_delay(a, 1, 4, 0), 1e-4);
  EXPECT_DOUBLE_EQ(arrival_delay(a, 2, 4, 0), 2e-4);
  EXPECT_DOUBLE_EQ(arrival_delay(a, 3, 4, 9), 3e-4);
  EXPECT_EQ(arrival_delay(a, 0, 1, 0), 0.0);  // a single rank is on time
  for (int size : kSizes)
    for (int r = 1; r < size; ++r) EXPECT_GT(arrival_delay(a, r, size, 0), arrival_delay(a, r - 1, size, 0));
  EXPECT_EQ(arrival_span(a, 16, 2).first, 0.0);
  EXPECT_EQ(arrival_span(a, 16, 2).last, 3e-4);
}

TEST(Arrival, RandomIsBoundedDeterministicAndVaries) {
  const Arrival a = make(ArrivalPattern::Random, 2e-4, 27);
  std::set<double> seen;
  double lo = 1, hi = 0, sum = 0;
  int n = 0;
  for (std::uint64_t rep = 0; rep < 200; ++rep)
    for (int r = 0; r < 16; ++r) {
      const double d = arrival_delay(a, r, 16, rep);
      ASSERT_GE(d, 0.0);
      ASSERT_LE(d, 2e-4);
      EXPECT_EQ(d, arrival_delay(a, r, 16, rep));       // the same (seed, rep, rank): the same delay
      EXPECT_EQ(d, arrival_delay(a, r, 1000, rep));     // independent of the process count
      seen.insert(d);
      lo = std::min(lo, d), hi = std::max(hi, d), sum += d, ++n;
    }
  EXPECT_EQ(seen.size(), 3200u);             // every rank and repetition draws its own
  EXPECT_LT(lo, 2e-6);                       // spread over [0, max]: 3200 draws reach both ends
  EXPECT_GT(hi, 1.98e-4);
  EXPECT_NEAR(sum / n, 1e-4, 5e-6);          // uniform: mean max/2 (sd of the mean ~1 us)
  EXPECT_NE(arrival_delay(a, 3, 16, 0), arrival_delay(make(ArrivalPattern::Random, 2e-4, 28), 3, 16, 0));
  EXPECT_NE(arrival_delay(a, 3, 16, 0), arrival_delay(a, 3, 16, 1));
  EXPECT_NE(arrival_delay(a, 3, 16, 0), arrival_delay(a, 4, 16, 0));
}

TEST(Arrival, SpanIsTheSmallestAndLargestDelayOfEveryPattern) {
  for (ArrivalPattern p : {ArrivalPattern::None, ArrivalPattern::OneLate, ArrivalPattern::Linear, ArrivalPattern::Random})
    for (int size : kSizes)
      for (std::uint64_t rep : {0u, 1u, 17u}) {
        const Arrival a = make(p, 1e-3, 5);
        double first = 1, last = 0;
        for (int r = 0; r < size; ++r) {
          first = std::min(first, arrival_delay(a, r, size, rep));
          last = std::max(last, arrival_delay(a, r, size, rep));
        }
        const ArrivalSpan s = arrival_span(a, size, rep);
        EXPECT_EQ(s.first, first) << to_string(p) << " size " << size;
        EXPECT_EQ(s.last, last) << to_string(p) << " size " << size;
      }
}

TEST(Arrival, MedianOverTheRepetitionsTheFilterKeeps) {
  // rep 3 is an outlier of time_s and rep 5 invalid: neither counts for the time from the last.
  const std::vector<double> times = {10, 11, 12, 1000, 13, 14, 15};
  const std::vector<bool> valid = {true, true, true, true, true, false, true};
  const std::vector<double> last = {1, 2, 3, 4, 5, 600, 7};
  EXPECT_EQ(median_over_kept(times, valid, 3, last), 3.0);  // median of {1, 2, 3, 5, 7}
  EXPECT_EQ(median_over_kept(times, valid, 3, times), summarize(times, valid, 3).median);
  EXPECT_TRUE(std::isnan(median_over_kept(times, std::vector<bool>(7, false), 3, last)));
}

// ------------------------------------------------------------------ configuration

namespace {

const char* kBase = R"(
experiment: t
collective: allgather
sizes: 1KiB
timing: {sync: round-time}
)";

using collbench::testing::error_of;

std::string parse_error(const std::string& yaml, std::vector<std::string> sets = {}) {
  return error_of([&] { parse_config(yaml, sets); });
}

}  // namespace

TEST(ArrivalConfig, DefaultIsNone) {
  const Config c = parse_config(kBase, {});
  EXPECT_EQ(c.sweeps.at(0).arrival.pattern, ArrivalPattern::None);
  EXPECT_EQ(c.sweeps.at(0).arrival.max_delay_s, 0.0);
  // none needs no global clock
  EXPECT_EQ(parse_error(kBase, {"timing.sync=barrier", "arrival={pattern: none}"}), "");
}

TEST(ArrivalConfig, TopLevelKey) {
  const Config c = parse_config(kBase, {"arrival={pattern: random, max_delay: 150us, seed: 9}"});
  const Arrival& a = c.sweeps.at(0).arrival;
  EXPECT_EQ(a.pattern, ArrivalPattern::Random);
  EXPECT_DOUBLE_EQ(a.max_delay_s, 150e-6);
  EXPECT_EQ(a.seed, 9u);
  EXPECT_NE(c.fingerprint(), parse_config(kBase, {}).fingerprint());
  EXPECT_EQ(config_value(c, "arrival.pattern"), "random");
}

TEST(ArrivalConfig, SettingsOverrideKeyByKey) {
  const std::string yaml = std::string(kBase) + R"(
arrival: {max_delay: 100us, seed: 4}
settings:
  - {name: none, arrival: {pattern: none}}
  - {name: late, arrival: {pattern: one-late}}
  - {name: lin, arrival: {pattern: linear, max_delay: 1ms}}
  - {name: default}
)";
  const Config c = parse_config(yaml, {});
  ASSERT_EQ(c.sweeps.size(), 4u);
  EXPECT_EQ(c.sweeps[0].arrival.pattern, ArrivalPattern::None);
  EXPECT_EQ(c.sweeps[1].arrival.pattern, ArrivalPattern::OneLate);
  EXPECT_DOUBLE_EQ(c.sweeps[1].arrival.max_delay_s, 100e-6);  // the top level's
  EXPECT_EQ(c.sweeps[1].arrival.seed, 4u);
  EXPECT_DOUBLE_EQ(c.sweeps[2].arrival.max_delay_s, 1e-3);    // its own
  EXPECT_EQ(c.sweeps[3].arrival.pattern, ArrivalPattern::None);
  EXPECT_EQ(c.sweeps[2].arrival_field, "settings[2].arrival.pattern");
}

TEST(ArrivalConfig, SkewNeedsAGlobalClock) {
  for (const char* sync : {"barrier", "double-barrier"})
    EXPECT_EQ(parse_error(kBase, {std::string("timing.sync=") + sync, "arrival={pattern: linear, max_delay: 100us}"}),
              std::string("config error: arrival.pattern = \"linear\" needs the global clock to skew the starts, but "
                          "timing.sync is ") + sync + " (set timing.sync: round-time or window, or arrival pattern none)");
  const std::string yaml = std::string(kBase) + "settings:\n  - {name: a}\n  - {name: b, arrival: {pattern: random, max_delay: 1ms}}\n";
  EXPECT_NE(parse_error(yaml, {"timing.sync=barrier"}).find("config error: settings[1].arrival.pattern = \"random\" needs the global clock"),
            std::string::npos);
  EXPECT_EQ(parse_error(kBase, {"timing.sync=window", "arrival={pattern: linear, max_delay: 100us}"}), "");
}

TEST(ArrivalConfig, Errors) {
  EXPECT_EQ(parse_error(kBase, {"arrival={pattern: late}"}),
            "config error: arrival.pattern = \"late\" is not one of none | one-late | linear | random");
  EXPECT_EQ(parse_error(kBase, {"arrival={pattern: linear}"}),
            "config error: arrival.max_delay is missing: pattern linear needs the largest delay (e.g. max_delay: 200us, "
            "at most 1 s)");
  EXPECT_EQ(parse_error(kBase, {"arrival={pattern: linear, max_delay: 2s}"}),
            "config error: arrival.max_delay = \"2s\" must be positive and at most 1 s");
  EXPECT_EQ(parse_error(kBase, {"arrival={pattern: linear, max_delay: 0us}"}),
            "config error: arrival.max_delay = \"0us\" must be positive and at most 1 s");
  // The probe's two: a negative delay is refused under none too, and 1e9s has a unit (its
  // exponent is part of the number): it is refused for the bound.
  EXPECT_EQ(parse_error(kBase, {"arrival={pattern: none, max_delay: -5us}"}),
            "config error: arrival.max_delay = \"-5us\" must be positive and at most 1 s");
  EXPECT_EQ(parse_error(kBase, {"arrival={pattern: linear, max_delay: -5us}"}),
            "config error: arrival.max_delay = \"-5us\" must be positive and at most 1 s");
  EXPECT_EQ(parse_error(kBase, {"arrival={pattern: linear, max_delay: 1e9s}"}),
            "config error: arrival.max_delay = \"1e9s\" must be positive and at most 1 s");
  EXPECT_DOUBLE_EQ(parse_config(kBase, {"arrival={pattern: linear, max_delay: 2.5e-4s}"}).sweeps.at(0).arrival.max_delay_s,
                   2.5e-4);
  EXPECT_EQ(parse_config(kBase, {"arrival={pattern: none, max_delay: 1ms}"}).sweeps.at(0).arrival.max_delay_s, 0.0);
  EXPECT_NE(parse_error(kBase, {"arrival={pattern: linear, max_delay: soon}"}).find("config error: arrival.max_delay = \"soon\""),
            std::string::npos);
  EXPECT_EQ(parse_error(kBase, {"arrival={pattern: random, max_delay: 1ms, seed: -1}"}),
            "config error: arrival.seed = -1 is out of range (use 0..4611686018427387904)");
  EXPECT_EQ(parse_error(kBase, {"arrival=linear"}),
            "config error: arrival = \"linear\" must be a map (e.g. arrival: {pattern: linear, max_delay: 200us})");
  EXPECT_EQ(parse_error(kBase, {"arrival={patern: linear}"}),
            "config error: arrival.patern is not a known key (did you mean arrival.pattern?)");
  EXPECT_EQ(parse_error(kBase, {"timing.arrival={pattern: linear}"}),
            "config error: timing.arrival is not a timing key: arrival is a sweep key, so that each setting can have its "
            "own (write arrival: {pattern: linear, max_delay: 200us} at the top level or in a setting)");
  EXPECT_EQ(parse_error(kBase, {"timing.sync=window", "timing.window=100us", "arrival={pattern: one-late, max_delay: 100us}"}),
            "config error: timing.window = 100 us is not longer than arrival.max_delay = 100 us: every repetition would "
            "start late (use window: auto, which adds max_delay, or a longer window)");
}
