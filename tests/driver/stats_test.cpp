// Tukey filter, quantiles and median on known data (numpy/pandas type-7 values).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include <cmath>

#include "output/contract.hpp"
#include "output/csv.hpp"
#include "families/family.hpp"
#include "timing/stats.hpp"

using namespace collbench;

TEST(Stats, QuantilesType7) {
  const std::vector<double> v = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.75), 3.25);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0), 1);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 1), 4);
  const std::vector<double> one = {7};
  EXPECT_DOUBLE_EQ(quantile_sorted(one, 0.25), 7);
  EXPECT_TRUE(std::isnan(quantile_sorted({}, 0.5)));
}

TEST(Stats, Median) {
  EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({2}), 2);
}

TEST(Stats, TukeyFilterDropsFarOutliersOnly) {
  // 1..10 and 100: Q1 = 3.5, Q3 = 8.5, IQR = 5; k = 3 keeps [-11.5, 23.5].
  std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100};
  // numpy: np.percentile(v, [25, 75]) = [3.5, 8.5]
  const auto kept = tukey_filter(v, 3);
  EXPECT_EQ(kept.size(), 10u);
  EXPECT_EQ(kept.back(), 10);
  // k = 1.5 keeps [-4, 16]: the same here; k = 0.1 keeps [3, 9].
  EXPECT_EQ(tukey_filter(v, 0.1).size(), 7u);
  // Boundaries are inclusive.
  const std::vector<double> w = {0, 1, 1, 1, 2};  // Q1 = 1, Q3 = 1, IQR = 0: keeps only the 1s
  EXPECT_EQ(tukey_filter(w, 3).size(), 3u);
}

TEST(Stats, SummaryOfKeptValidValues) {
  const std::vector<double> t = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100, 0.5};
  std::vector<bool> valid(t.size(), true);
  valid[11] = false;  // the 0.5 is an invalid (late) repetition
  const Summary s = summarize(t, valid, 3);
  EXPECT_EQ(s.n, 12u);
  EXPECT_EQ(s.n_invalid, 1u);
  EXPECT_EQ(s.n_kept, 10u);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.q1, 3.25);
  EXPECT_DOUBLE_EQ(s.q3, 7.75);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_DOUBLE_EQ(s.k, 3);
}

TEST(Stats, TailPercentilesKeepWhatTheFilterCuts) {
  // Valid: 1..10 and 100 (11 values); the filter drops the 100, the percentiles keep it.
  const std::vector<double> t = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100, 0.5};
  std::vector<bool> valid(t.size(), true);
  valid[11] = false;  // invalid repetitions are not counted in either
  const Summary s = summarize(t, valid, 3);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.p50, 6);               // type 7: h = 10 * 0.5 = 5, the sixth value
  EXPECT_DOUBLE_EQ(s.p90, 10);              // h = 9
  EXPECT_DOUBLE_EQ(s.p99, 10 + 0.9 * 90);   // h = 9.9, between 10 and 100
  const Summary none = summarize(std::vector<double>{1, 2}, std::vector<bool>{false, false}, 3);
  EXPECT_TRUE(std::isnan(none.p50) && std::isnan(none.p90) && std::isnan(none.p99));
}

TEST(Stats, AllInvalidGivesNan) {
  const Summary s = summarize(std::vector<double>{1, 2}, std::vector<bool>{false, false}, 3);
  EXPECT_EQ(s.n_invalid, 2u);
  EXPECT_EQ(s.n_kept, 0u);
  EXPECT_TRUE(std::isnan(s.median));
  EXPECT_EQ(csv_number(s.median), "nan");
}

TEST(Csv, QuotingRoundTrip) {
  const std::vector<std::string> f = {"moore:d=2,r=1", "plain", "say \"hi\"", "", "4x4"};
  const std::string line = csv_line(f);
  EXPECT_EQ(line, "\"moore:d=2,r=1\",plain,\"say \"\"hi\"\"\",,4x4\n");
  EXPECT_EQ(csv_split(line.substr(0, line.size() - 1)), f);
  EXPECT_THROW(csv_split("\"open"), std::invalid_argument);
  EXPECT_EQ(csv_number(1.5e-5), "1.5e-05");
}

TEST(Csv, ContractColumns) {
  EXPECT_EQ(raw_columns().front(), "experiment");
  EXPECT_EQ(raw_columns().back(), "time_from_last_s");
  EXPECT_EQ(summary_columns().back(), "overlap_compute_s");
  // Every column of the tables is described in the contract, once.
  for (const auto* table : {&raw_columns(), &summary_columns()}) {
    std::set<std::string> seen;
    for (const auto& c : *table) {
      EXPECT_TRUE(contract()["columns"].contains(c)) << c;
      EXPECT_TRUE(seen.insert(c).second) << c << " twice";
    }
  }
}

TEST(Csv, EveryFamilyFillsExactlyItsContractShapeColumns) {
  std::set<std::string> families;
  for (const FamilyAdapter* f : family_adapters()) {
    families.insert(f->name());
    for (collrepro::Collective c : collrepro::all_collectives())
      if (f->handles(c)) {
        const auto listed = contract()["families"][f->name()]["collectives"].get<std::vector<std::string>>();
        EXPECT_NE(std::find(listed.begin(), listed.end(), collrepro::to_string(c)), listed.end())
            << collrepro::to_string(c) << " is not listed under the contract's family " << f->name();
      }
  }
  for (const auto& [name, family] : contract()["families"].items()) EXPECT_TRUE(families.count(name)) << name;
}

TEST(Csv, RowsBindValuesToColumnsByName) {
  Row r(summary_columns());
  r.set("algorithm", "torus").set("neighborhood", "moore:d=2,r=1");
  const auto fields = csv_split(r.line().substr(0, r.line().size() - 1));
  const auto at = [&](const std::string& c) {
    return fields[static_cast<std::size_t>(std::find(summary_columns().begin(), summary_columns().end(), c) -
                                           summary_columns().begin())];
  };
  EXPECT_EQ(at("algorithm"), "torus");
  EXPECT_EQ(at("neighborhood"), "moore:d=2,r=1");
  EXPECT_EQ(at("p"), "");
  EXPECT_THROW(r.set("no_such_column", "x"), std::logic_error);
}
