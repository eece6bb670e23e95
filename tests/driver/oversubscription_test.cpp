// The oversubscription assessment (bench/timing/oversubscription.hpp): ranks over the cores
// their bindings touch, per node, the largest node reported.
#include <gtest/gtest.h>

#include "timing/oversubscription.hpp"

namespace collbench {
namespace {

TEST(Oversubscription, UnboundRanksShareTheNodesCores) {
  std::vector<RankCores> r(8, RankCores{0, "a", {0, 1}});  // 8 ranks, each may run on cores 0-1
  const Oversubscription o = assess_oversubscription(r);
  EXPECT_DOUBLE_EQ(o.ranks_per_core, 4);
  EXPECT_TRUE(o.oversubscribed());
  EXPECT_EQ(o.ranks, 8);
  EXPECT_EQ(o.cores, 2);
  EXPECT_NE(o.warning().find("8 ranks share 2 cores on a (4 per core)"), std::string::npos) << o.warning();
}

TEST(Oversubscription, OneRankPerBoundCoreIsNot) {
  std::vector<RankCores> r;
  for (int i = 0; i < 4; ++i) r.push_back({0, "a", {i}});
  const Oversubscription o = assess_oversubscription(r);
  EXPECT_DOUBLE_EQ(o.ranks_per_core, 1);
  EXPECT_FALSE(o.oversubscribed());
  EXPECT_EQ(o.warning(), "");
}

TEST(Oversubscription, RanksBoundToFewCoresOfABigNode) {
  // 4 ranks bound two by two to cores 0 and 1 of a node with many more cores: 2 per core.
  const std::vector<RankCores> r = {{0, "a", {0}}, {0, "a", {0}}, {0, "a", {1}}, {0, "a", {1}}};
  EXPECT_DOUBLE_EQ(assess_oversubscription(r).ranks_per_core, 2);
}

TEST(Oversubscription, TheWorstNodeIsReported) {
  const std::vector<RankCores> r = {{0, "a", {0, 1}}, {0, "a", {0, 1}}, {1, "b", {0}}, {1, "b", {0}}, {1, "b", {0}}};
  const Oversubscription o = assess_oversubscription(r);
  EXPECT_EQ(o.host, "b");
  EXPECT_DOUBLE_EQ(o.ranks_per_core, 3);
  EXPECT_EQ(o.to_json()["oversubscribed"], true);
}

}  // namespace
}  // namespace collbench
