// Issue #17: bounded inputs, strict YAML and the command line. Each table row (F1-F4, F6,
// W1-W5) is one test here; F5/W7 (damaged result files) are in plan_test.cpp (resume) and
// tests/python/test_integrity.py (analysis), the end-to-end runs in reliability.sh.
#include <gtest/gtest.h>

#include <chrono>

#include "run/cli.hpp"
#include "collrepro/neighborhood.hpp"
#include "config/config.hpp"
#include "run/memory_budget.hpp"
#include "error_of.hpp"
#include "families/plan.hpp"
#include "config/units.hpp"

using namespace collbench;
using collbench::testing::error_of;

namespace {

std::string iso_config(const std::string& neighborhood, const std::string& dims = "auto") {
  return "experiment: t\ncollective: neighbor-alltoall\nsizes: [1KiB]\nneighborhoods: [\"" + neighborhood +
         "\"]\ndims: [\"" + dims + "\"]\n";
}

std::string plan_error(const std::string& yaml, int nprocs) {
  return error_of([&] { make_plan(parse_config(yaml, {}), nprocs); });
}

std::string column(const Plan& plan, const std::string& name) {
  for (const auto& [c, v] : plan.point(0).shape->columns())
    if (c == name) return v;
  return "";
}

std::string cli_error(std::vector<std::string> args) {
  args.insert(args.begin(), "collbench");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return error_of([&] { parse_cli(static_cast<int>(argv.size()), argv.data(), false); });
}

template <class F>
double seconds(F f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(Reliability, F1OffsetsBeyondTheTorusRangeAreRefused) {
  EXPECT_NE(plan_error(iso_config("list:(-2147483648,0)", "5x1"), 5)
                .find("list: offset (-2147483648,0) has |C| = 2147483648, more than 1073741824"),
            std::string::npos);
  // At the bound the offsets are reduced modulo the torus: 2^30 = 4 (mod 5).
  const Plan plan = make_plan(parse_config(iso_config("list:(-1073741824,0)", "5x1"), {}), 5);
  EXPECT_EQ(column(plan, "neighborhood"), "list:(-1073741824,0)");
}

TEST(Reliability, F2PlanningCostDoesNotDependOnTheOffset) {
  Plan plan;
  EXPECT_LT(seconds([&] { plan = make_plan(parse_config(iso_config("list:(1000000000,0),(1,1)", "5x1"), {}), 5); }), 1.0);
  const Plan small = make_plan(parse_config(iso_config("list:(0,0),(1,1)", "5x1"), {}), 5);
  ASSERT_EQ(plan.size(), small.size());
  for (std::size_t i = 0; i < plan.size(); ++i) EXPECT_EQ(plan.point(i).cost.alpha_terms, small.point(i).cost.alpha_terms);
  EXPECT_EQ(column(plan, "neighborhood"), "list:(1000000000,0),(1,1)");  // the CSV keeps the configured text
}

TEST(Reliability, F3NeighborhoodAndPlanBudgets) {
  for (const char* n : {"moore:d=2,r=1023", "octant:d=22,r=1", "moore:d=1,r=2097151", "moore:d=2,r=91"})
    EXPECT_NE(error_of([&] { parse_config(iso_config(n), {}); }).find("bad neighbourhood"), std::string::npos) << n;
  EXPECT_NE(plan_error(iso_config("moore:d=1,r=2047", "4096"), 4096).find("over the plan budget"), std::string::npos);
}

TEST(Reliability, F4RangesAreCappedWhileGenerated) {
  EXPECT_LT(seconds([] { EXPECT_THROW(parse_size_spec("0..1TiB +1"), std::invalid_argument); }), 0.5);
  EXPECT_LT(seconds([] { EXPECT_THROW(parse_size_spec("1..1TiB x1.0000001"), std::invalid_argument); }), 0.5);
  EXPECT_EQ(parse_size_spec("1..100000 +1").size(), kMaxSizes);
  EXPECT_NE(error_of([] { parse_config("experiment: t\ncollective: allgather\nsizes: [\"1..99999 +1\", \"100000..100001 +1\"]\n", {}); })
                .find("config error: sizes has more than 100000 sizes"),
            std::string::npos);
}

TEST(Reliability, F6DuplicateKeysAndGet) {
  const std::string base = "experiment: t\ncollective: allgather\nsizes: [1KiB]\n";
  EXPECT_EQ(error_of([&] { parse_config(base + "sizes: [2KiB]\n", {}, "c.yaml"); }),
            "config error: c.yaml:4: sizes is given twice (keep one)");
  EXPECT_EQ(error_of([&] { parse_config(base + "timing: {reps: 3, reps: 4}\n", {}, "c.yaml"); }),
            "config error: c.yaml:4: timing.reps is given twice (keep one)");
  EXPECT_NE(error_of([&] { parse_config(base, {"timing={reps: 3, reps: 4}"}); }).find("--set timing"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_config(base + "? [a, b]\n: 1\n", {}); }).find("a key must be a plain name"), std::string::npos);
  const Config c = parse_config(base, {});
  EXPECT_EQ(error_of([&] { config_value(c, "nosuchkey"); }).rfind("config error: --get nosuchkey is not a known key", 0), 0u);
  EXPECT_NE(error_of([&] { config_value(c, "timing.rep"); }).find("did you mean --get timing.reps?"), std::string::npos);
  EXPECT_EQ(config_value(c, "timing.reps"), "20");  // a default
  EXPECT_EQ(config_value(c, "launches"), "1");
  EXPECT_EQ(config_value(c, "dims"), "");  // a known key the config leaves out
}

TEST(Reliability, W1HugeDimsAreAConfigError) {
  EXPECT_NE(error_of([] { parse_config(iso_config("moore:d=2,r=1", "99999999999999999999x1"), {}); })
                .find("dims[0] = \"99999999999999999999x1\" must be auto or positive sizes"),
            std::string::npos);
}

TEST(Reliability, W2PointsMustFitTheNodesMemory) {
  const Config c = parse_config("experiment: t\ncollective: allgather\nsizes: [1KiB, 1TiB]\n", {});
  const Plan plan = make_plan(c, 4);
  const std::string e = error_of([&] { check_memory_budget(c, plan, {std::size_t{16} << 30, 4}); });
  EXPECT_NE(e.find("config error: sizes = 1TiB: point"), std::string::npos) << e;
  EXPECT_NE(e.find("more than the budget of 4 GiB per rank (16 GiB of memory on this node"), std::string::npos) << e;
  EXPECT_EQ(error_of([&] { check_memory_budget(c, plan, {std::size_t{1} << 50, 4}); }), "");
}

TEST(Reliability, W2AnAggregateBeyondOneMpiCallIsSkippedWithItsReason) {
  // Seed 000 at 1024 processes and 4 MiB: root gathering's group of 512 gathers and broadcasts
  // 2 GiB, which it counts in 8-byte words (collrepro/words.hpp), so it runs. At 64 MiB the
  // group holds 32 GiB: 4 Gi words, beyond the int count; that point is skipped with its reason,
  // and halfduplex-fc still runs.
  const Config c = parse_config("experiment: t\ncollective: allgather\npair_mode: intracomm\n"
                                "algorithms: [halfduplex-fc, root-gathering]\ngroups: {ratios: [\"1/1\"]}\n"
                                "blocks: [\"1:0\"]\nsizes: [2MiB, 4MiB, 64MiB]\n", {});
  const Plan plan = make_plan(c, 1024);
  EXPECT_EQ(plan.size(), 5u);
  int skipped = 0;
  for (const Candidate& k : plan.candidates)
    if (!k.supported) {
      ++skipped;
      EXPECT_EQ(k.algorithm->info().name, "root-gathering");
      EXPECT_EQ(k.shape->msg_bytes(), std::size_t{64} << 20);
      EXPECT_NE(k.reason.find("34359738368 bytes is more than one MPI_Gatherv/MPI_Bcast can count (an int of "
                              "8-byte words)"),
                std::string::npos)
          << k.reason;
    }
  EXPECT_EQ(skipped, 1);
}

TEST(Reliability, W2AnAllgathervAggregateCountsBytes) {
  // Allgatherv's group members know only their own block, so root gathering counts bytes there:
  // an aggregate of 2 GiB or more is skipped with its reason.
  const Config c = parse_config("experiment: t\ncollective: allgatherv\npair_mode: intracomm\n"
                                "algorithms: [root-gathering]\ngroups: {ratios: [\"1/1\"]}\n"
                                "distributions: [equal]\nsizes: [1KiB, 3GiB]\n", {});
  const Plan plan = make_plan(c, 1024);
  int skipped = 0;
  for (const Candidate& k : plan.candidates)
    if (!k.supported) {
      ++skipped;
      EXPECT_NE(k.reason.find("an int of 1-byte elements: Allgatherv counts bytes"), std::string::npos) << k.reason;
    }
  EXPECT_EQ(skipped, 1);
}

TEST(Reliability, W2SimulatedRanksShareOneMachineButFoldedBuffersTakeNone) {
  const Config c = parse_config("experiment: t\ncollective: allgather\nsizes: [1KiB, 1GiB]\n", {});
  const Plan plan = make_plan(c, 1024);
  // 1024 simulated ranks on 16 GiB: 16 MiB per rank. Folded from 1 MiB, a point holds at most
  // two buffers below that per rank, whatever its size.
  const MemoryBudget folded{std::size_t{16} << 30, 1024, true, std::size_t{1} << 20};
  EXPECT_EQ(resident_bytes(std::size_t{600} << 30, folded), std::size_t{2} << 20);
  EXPECT_EQ(resident_bytes(1000, folded), 1000u);
  EXPECT_EQ(error_of([&] { check_memory_budget(c, plan, folded); }), "");
  const MemoryBudget unfolded{std::size_t{16} << 30, 1024, true, 0};
  const std::string e = error_of([&] { check_memory_budget(c, plan, unfolded); });
  EXPECT_NE(e.find("for 1024 simulated ranks): use smaller sizes, fewer ranks or a lower simrun --fold"),
            std::string::npos) << e;
}

TEST(Reliability, W3W4W5CommandLine) {
  EXPECT_NE(cli_error({"/tmp"}).find("usage error: /tmp is a directory"), std::string::npos);
  EXPECT_EQ(cli_error({"c.yaml", "--launch", "-1"}), "usage error: --launch -1: want a launch number 0..99999");
  EXPECT_EQ(cli_error({"c.yaml", "--launch", "99999999999999999999"}),
            "usage error: --launch 99999999999999999999: want a launch number 0..99999");
  EXPECT_NE(cli_error({"c.yaml", "--out", ""}).find("usage error: --out '' is empty"), std::string::npos);
  EXPECT_EQ(cli_error({"c.yaml", "--launch", "3"}), "");
}
