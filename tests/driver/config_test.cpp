// Configuration parsing, --set overrides, units and every error message of the config layer.
#include <gtest/gtest.h>

#include "config/config.hpp"
#include "error_of.hpp"
#include "base/errors.hpp"
#include "families/inter_family.hpp"
#include "families/plan.hpp"
#include "config/units.hpp"

using namespace collbench;

namespace {

const char* kMinimal = R"(
experiment: t
collective: allgather
sizes: 1KiB
)";

using collbench::testing::error_of;

std::string parse_error(const std::string& yaml, std::vector<std::string> sets = {}) {
  return error_of([&] { parse_config(yaml, sets); });
}

std::string plan_error(const std::string& yaml, int nprocs, std::vector<std::string> sets = {}) {
  return error_of([&] { make_plan(parse_config(yaml, sets), nprocs); });
}

}  // namespace

TEST(Units, Bytes) {
  EXPECT_EQ(parse_bytes("4096"), 4096u);
  EXPECT_EQ(parse_bytes("32KiB"), 32768u);
  EXPECT_EQ(parse_bytes("1.5MiB"), 1572864u);
  EXPECT_EQ(parse_bytes("2 GiB"), 2147483648u);
  EXPECT_EQ(parse_bytes("64kB"), 64000u);
  EXPECT_EQ(parse_bytes("1MB"), 1000000u);
  EXPECT_EQ(parse_bytes("7B"), 7u);
  EXPECT_THROW(parse_bytes("32K"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("KiB"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("1.5B"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("12 apples"), std::invalid_argument);
}

TEST(Units, Ranges) {
  EXPECT_EQ(parse_size_spec("32KiB..256KiB x2"), (std::vector<std::size_t>{32768, 65536, 131072, 262144}));
  EXPECT_EQ(parse_size_spec("1KiB..64KiB x4"), (std::vector<std::size_t>{1024, 4096, 16384, 65536}));
  EXPECT_EQ(parse_size_spec("1KiB..100KiB x4"), (std::vector<std::size_t>{1024, 4096, 16384, 65536}));
  EXPECT_EQ(parse_size_spec("0..4KiB +1KiB"), (std::vector<std::size_t>{0, 1024, 2048, 3072, 4096}));
  EXPECT_EQ(parse_size_spec("512"), (std::vector<std::size_t>{512}));
  EXPECT_THROW(parse_size_spec("1KiB..4KiB"), std::invalid_argument);
  EXPECT_THROW(parse_size_spec("0..4KiB x2"), std::invalid_argument);
  EXPECT_THROW(parse_size_spec("4KiB..1KiB x2"), std::invalid_argument);
  EXPECT_THROW(parse_size_spec("1KiB..4KiB x1"), std::invalid_argument);
}

TEST(Units, DurationsAndFormat) {
  EXPECT_DOUBLE_EQ(parse_duration("1ms"), 1e-3);
  EXPECT_DOUBLE_EQ(parse_duration("250us"), 250e-6);
  EXPECT_DOUBLE_EQ(parse_duration("0.5s"), 0.5);
  EXPECT_DOUBLE_EQ(parse_duration("10ns"), 10e-9);
  EXPECT_THROW(parse_duration("5"), std::invalid_argument);
  EXPECT_THROW(parse_duration("5 min"), std::invalid_argument);
  EXPECT_EQ(format_bytes(65536), "64KiB");
  EXPECT_EQ(format_bytes(1000), "1000B");
  EXPECT_EQ(format_bytes(3u << 20), "3MiB");
}

TEST(Config, DefaultsOfAMinimalFile) {
  const Config c = parse_config(kMinimal, {});
  EXPECT_EQ(c.experiment, "t");
  EXPECT_EQ(c.launches, 1);
  EXPECT_TRUE(c.validation);
  EXPECT_EQ(c.binding, Binding::None);
  EXPECT_EQ(c.timing.sync, SyncMethod::Barrier);
  EXPECT_EQ(c.timing.clock, ClockKind::MpiWtime);
  EXPECT_EQ(c.timing.reps, 20);
  EXPECT_EQ(c.timing.warmup, 2);
  EXPECT_DOUBLE_EQ(c.timing.tukey_k, 3);
  EXPECT_FALSE(c.timing.window.has_value());
  EXPECT_EQ(c.timing.clock_sync, ClockSyncKind::Hierarchical);
  EXPECT_EQ(c.timing.resync, Resync::Bound);
  EXPECT_DOUBLE_EQ(c.timing.budget, 1.0);
  EXPECT_DOUBLE_EQ(c.timing.residual_bound, 10e-6);
  ASSERT_EQ(c.sweeps.size(), 1u);
  const Sweep& s = c.sweeps[0];
  EXPECT_EQ(s.collective, collrepro::Collective::Allgather);
  EXPECT_EQ(s.family->name(), "inter-group");
  EXPECT_EQ(s.algorithms.values, std::vector<std::string>{"all"});
  const auto& inter = s.family_fields<InterSweep>();
  EXPECT_EQ(inter.pair_mode, collrepro::PairMode::Intercomm);
  ASSERT_EQ(inter.groups.size(), 1u);
  EXPECT_EQ(inter.groups[0].text, "1/1");
  ASSERT_EQ(inter.blocks.size(), 1u);
  EXPECT_EQ(inter.blocks[0].text, "1:1");
  EXPECT_EQ(s.placements.values, std::vector<std::string>{"block"});
  EXPECT_EQ(s.sizes, std::vector<std::size_t>{1024});
}

TEST(Config, FullSchema) {
  const Config c = parse_config(R"(
experiment: full
description: all fields
launches: 4
validation: false
binding: core
collective: allgatherv
algorithms: [native, fullduplex-allgatherv]
pair_mode: intracomm
groups: {ratios: ["25/7", "1/1"], sizes: ["6/2"]}
blocks: ["4:1", "1:0"]
distributions: [equal, arithmetic]
sizes: ["1KiB..4KiB x2", 100]
placements: [block, interleaved, nodes, sockets]
timing:
  sync: window
  clock: monotonic
  warmup: 5
  reps: 50
  tukey_k: 1.5
  window: 2ms
  sync_fit_points: 4
  sync_exchanges: 7
  resync: launch
  agree_every: 8
)",
                                {});
  EXPECT_EQ(c.launches, 4);
  EXPECT_FALSE(c.validation);
  EXPECT_EQ(c.binding, Binding::Core);
  EXPECT_EQ(c.timing.sync, SyncMethod::Window);
  EXPECT_DOUBLE_EQ(*c.timing.window, 2e-3);
  EXPECT_EQ(c.timing.resync, Resync::Launch);
  EXPECT_EQ(c.timing.agree_every, 8);
  const Sweep& s = c.sweeps[0];
  const auto& inter = s.family_fields<InterSweep>();
  ASSERT_EQ(inter.groups.size(), 3u);
  EXPECT_EQ(inter.groups[0].field, "groups.ratios[0]");
  EXPECT_EQ(inter.groups[2].kind, GroupSpec::Kind::Sizes);
  EXPECT_EQ(inter.groups[2].field, "groups.sizes[0]");
  EXPECT_EQ(inter.blocks[1].ka, 1u);
  EXPECT_EQ(inter.blocks[1].kb, 0u);
  ASSERT_EQ(inter.distributions.size(), 2u);
  EXPECT_EQ(inter.distributions[1].kind, Distribution::Kind::Arithmetic);
  EXPECT_EQ(s.sizes, (std::vector<std::size_t>{1024, 2048, 4096, 100}));
  EXPECT_EQ(s.placements.values.size(), 4u);
}

TEST(Config, Settings) {
  const Config c = parse_config(R"(
experiment: s
collective: allgather
sizes: [1KiB]
settings:
  - name: "setting 1"
  - name: "setting 3"
    groups: {ratios: ["25/7"]}
    blocks: ["4:1"]
)",
                                {});
  ASSERT_EQ(c.sweeps.size(), 2u);
  EXPECT_EQ(c.sweeps[0].name, "setting 1");
  EXPECT_EQ(c.sweeps[1].family_fields<InterSweep>().groups[0].field, "settings[1].groups.ratios[0]");
  EXPECT_EQ(c.sweeps[1].family_fields<InterSweep>().blocks[0].ka, 4u);
  EXPECT_EQ(c.sweeps[0].family_fields<InterSweep>().blocks[0].ka, 1u);
}

TEST(Config, SetOverrides) {
  const Config c = parse_config(kMinimal, {"timing.reps=50", "sizes=1KiB..64KiB x4", "groups.ratios=[\"1/1\", \"25/7\"]",
                                           "groups.ratios[1]=3/1", "timing.window=1us", "validation=false"});
  EXPECT_EQ(c.timing.reps, 50);
  EXPECT_EQ(c.sweeps[0].sizes, (std::vector<std::size_t>{1024, 4096, 16384, 65536}));
  ASSERT_EQ(c.sweeps[0].family_fields<InterSweep>().groups.size(), 2u);
  EXPECT_EQ(c.sweeps[0].family_fields<InterSweep>().groups[1].text, "3/1");
  EXPECT_DOUBLE_EQ(*c.timing.window, 1e-6);
  const Config rt = parse_config(kMinimal, {"timing.sync=round-time", "timing.budget=250ms", "timing.clock_sync=linear",
                                            "timing.residual_bound=2us"});
  EXPECT_EQ(rt.timing.sync, SyncMethod::RoundTime);
  EXPECT_DOUBLE_EQ(rt.timing.budget, 0.25);
  EXPECT_EQ(rt.timing.clock_sync, ClockSyncKind::Linear);
  EXPECT_DOUBLE_EQ(rt.timing.residual_bound, 2e-6);
  EXPECT_FALSE(c.validation);
}

TEST(Config, SetOfASweepKeyOverridesEverySetting) {
  const Config c = parse_config(R"(
experiment: s
collective: allgather
sizes: [1KiB]
settings:
  - name: a
    sizes: [4KiB, 8KiB]
  - name: b
)",
                                {"sizes=[2KiB]", "settings[1].blocks=[\"1:0\"]"});
  EXPECT_EQ(c.sweeps[0].sizes, std::vector<std::size_t>{2048});
  EXPECT_EQ(c.sweeps[1].sizes, std::vector<std::size_t>{2048});
  EXPECT_EQ(c.sweeps[1].family_fields<InterSweep>().blocks[0].kb, 0u);
}

TEST(Config, CallForms) {
  const std::string min = "experiment: x\ncollective: allgather\nsizes: [1KiB]\n";
  EXPECT_EQ(parse_config(min, {}).sweeps[0].calls, std::vector<collrepro::CallForm>{collrepro::CallForm::Blocking});
  const Config c = parse_config(min + "call: [nonblocking, persistent]\n", {});
  EXPECT_EQ(c.sweeps[0].calls,
            (std::vector<collrepro::CallForm>{collrepro::CallForm::Nonblocking, collrepro::CallForm::Persistent}));
  EXPECT_EQ(parse_error(min + "call: [blocking, sometimes]\n"),
            "config error: call[1] = \"sometimes\" is not a call form (use blocking | nonblocking | persistent)");
  EXPECT_EQ(parse_error(min + "call: [blocking, blocking]\n"),
            "config error: call[1] = \"blocking\" is given twice (list each form once)");
}

TEST(Config, Fingerprint) {
  const auto a = parse_config(kMinimal, {}).fingerprint();
  EXPECT_EQ(a, parse_config(kMinimal, {}).fingerprint());
  EXPECT_EQ(a, parse_config(kMinimal, {"description=other", "launches=7"}).fingerprint());
  EXPECT_NE(a, parse_config(kMinimal, {"timing.reps=21"}).fingerprint());
  EXPECT_EQ(config_value(parse_config(kMinimal, {"launches=3"}), "launches"), "3");
  EXPECT_EQ(config_value(parse_config(kMinimal, {}), "launches"), "1");
  EXPECT_EQ(config_value(parse_config(kMinimal, {}), "collective"), "allgather");
}

TEST(Config, SlurmSectionIsAcceptedAndIgnored) {
  const std::string with_slurm = std::string(kMinimal) + "slurm: {time: \"00:10:00\", ntasks_per_node: 8}\n";
  EXPECT_EQ(parse_config(with_slurm, {}).fingerprint(), parse_config(kMinimal, {}).fingerprint());
  EXPECT_EQ(parse_error(std::string(kMinimal) + "slurm: 3\n"),
            "config error: slurm = \"3\" must be a map of Slurm settings (see slurm/README.md)");
}

// ---------------------------------------------------------------- error messages

TEST(ConfigErrors, UnknownKeysWithSuggestion) {
  EXPECT_EQ(parse_error(std::string(kMinimal) + "timing: {rep: 5}\n"),
            "config error: timing.rep is not a known key (did you mean timing.reps?)");
  EXPECT_EQ(parse_error(std::string(kMinimal) + "sizez: 1\n"), "config error: sizez is not a known key (did you mean sizes?)");
  EXPECT_EQ(parse_error(kMinimal, {"groups.ration=[1/1]"}),
            "config error: groups.ration is not a known key (did you mean groups.ratios?)");
  EXPECT_NE(parse_error(std::string(kMinimal) + "frobnicate: 1\n").find("frobnicate is not a known key (valid keys:"),
            std::string::npos);
}

TEST(ConfigErrors, BadValues) {
  EXPECT_EQ(parse_error(kMinimal, {"sizes=32K"}),
            "config error: sizes = \"32K\": unknown size unit \"K\" in \"32K\" (use B, KiB, MiB, GiB (1024) or kB, MB, GB (1000))");
  EXPECT_EQ(parse_error(kMinimal, {"sizes=[1KiB, 2 apples]"}).rfind("config error: sizes[1] = \"2 apples\"", 0), 0u);
  EXPECT_EQ(parse_error(kMinimal, {"timing.reps=0"}), "config error: timing.reps = 0 is out of range (use 1..10000000)");
  EXPECT_EQ(parse_error(kMinimal, {"timing.reps=many"}), "config error: timing.reps = \"many\" must be an integer");
  EXPECT_EQ(parse_error(kMinimal, {"timing.sync=fence"}),
            "config error: timing.sync = \"fence\" is not one of barrier | double-barrier | window | round-time");
  EXPECT_EQ(parse_error(kMinimal, {"timing.clock=rdtsc"}),
            "config error: timing.clock = \"rdtsc\" is not one of mpi-wtime | monotonic | tsc");
  EXPECT_EQ(parse_error(kMinimal, {"timing.window=5"}),
            "config error: timing.window = \"5\": duration \"5\" needs a unit s, ms, us or ns (or auto)");
  EXPECT_EQ(parse_error(kMinimal, {"timing.tukey_k=0"}), "config error: timing.tukey_k = 0 must be positive (3 is usual)");
  EXPECT_EQ(parse_error(kMinimal, {"timing.clock_sync=tree"}),
            "config error: timing.clock_sync = \"tree\" is not one of hierarchical | linear");
  EXPECT_EQ(parse_error(kMinimal, {"timing.budget=4000s"}),
            "config error: timing.budget = \"4000s\" must be positive and at most 3600 s");
  EXPECT_EQ(parse_error(kMinimal, {"timing.residual_bound=0s"}),
            "config error: timing.residual_bound = \"0s\" must be positive and at most 1 s");
  EXPECT_EQ(parse_error(kMinimal, {"timing.resync=often"}),
            "config error: timing.resync = \"often\" is not one of bound | point | launch");
  EXPECT_EQ(parse_error(kMinimal, {"pair_mode=intercom"}),
            "config error: pair_mode = \"intercom\" is not one of intercomm | intracomm");
  EXPECT_EQ(parse_error(kMinimal, {"groups.ratios=[\"25:7\"]"}),
            "config error: groups.ratios[0] = \"25:7\" must be p/q with positive integers, e.g. \"25/7\"");
  EXPECT_EQ(parse_error(kMinimal, {"blocks=[\"4/1\"]"}),
            "config error: blocks[0] = \"4/1\" must be kA:kB with non-negative integers, e.g. \"4:1\" or \"1:0\"");
  EXPECT_EQ(parse_error(kMinimal, {"blocks=0:0"}), "config error: blocks = \"0:0\" moves no data (use 1:0 for half-duplex A->B)");
  EXPECT_EQ(parse_error(kMinimal, {"collective=allreduce"}),
            "config error: collective = \"allreduce\" is not one of allgather | allgatherv | neighbor-alltoall | "
            "neighbor-allgather | neighbor-alltoallw | intra-allgather | intra-allgatherv | intra-gather | intra-bcast");
  EXPECT_EQ(parse_error(kMinimal, {"validation=maybe"}), "config error: validation = \"maybe\" must be true or false");
  EXPECT_EQ(parse_error(kMinimal, {"experiment=a b"}),
            "config error: experiment = \"a b\" must be a non-empty name of letters, digits, '-', '_' or '.'");
}

TEST(ConfigErrors, MissingFieldsAndSyntax) {
  EXPECT_EQ(parse_error("collective: allgather\nsizes: 1\n"),
            "config error: experiment is missing (give the experiment a name, e.g. experiment: quick)");
  EXPECT_EQ(parse_error("experiment: x\ncollective: allgather\n"),
            "config error: sizes is missing (e.g. sizes: \"1KiB..1MiB x4\")");
  EXPECT_EQ(parse_error("experiment: x\nsizes: 1\n").rfind("config error: collective is missing", 0), 0u);
  EXPECT_EQ(parse_error("experiment: [x\n").rfind("config error: config:", 0), 0u);
  EXPECT_EQ(parse_error(kMinimal, {"timing.reps"}),
            "config error: --set needs key=value (e.g. timing.reps=50), got \"timing.reps\"");
  EXPECT_EQ(parse_error(kMinimal, {"groups.ratios[5]=1/1"}).rfind("config error: --set groups.ratios[5]=1/1: index [5] does not exist", 0), 0u);
  EXPECT_EQ(parse_error(std::string(kMinimal) + "settings:\n  - name: a\n  - name: a\n"),
            "config error: settings[1].name = \"a\" is used twice");
  EXPECT_EQ(parse_error(std::string(kMinimal) + "settings:\n  - sizes: [1]\n"),
            "config error: settings[0].name is missing (each setting needs a name, e.g. \"setting 1\")");
  EXPECT_EQ(parse_error(std::string(kMinimal) + "settings:\n  - name: a\n    timing: {reps: 3}\n"),
            "config error: settings[0].timing is not a known key (valid keys: collective, algorithms, sizes, placements, "
            "arrival, call, pair_mode, groups, blocks, distributions, roots, neighborhoods, dims, name)");
}

TEST(ConfigErrors, GroupsThatDoNotFit) {
  EXPECT_EQ(plan_error(kMinimal, 16, {"groups.ratios=[\"1/1\", \"25/7\"]"}),
            "config error: groups.ratios[1] = \"25/7\" needs a multiple of 32 processes, got 16 (use -n 32 or a ratio "
            "that divides 16)");
  EXPECT_EQ(plan_error(kMinimal, 9, {"groups.ratios=[\"1/1\"]"}),
            "config error: groups.ratios[0] = \"1/1\" needs a multiple of 2 processes, got 9 (use -n 8 or a ratio that "
            "divides 9)");
  EXPECT_EQ(plan_error(kMinimal, 4, {"groups={sizes: [\"6/2\"]}"}),
            "config error: groups.sizes[0] = \"6/2\" needs 8 processes, got 4 (use -n 8 or smaller groups)");
  EXPECT_EQ(plan_error(kMinimal, 32, {"groups.ratios=[\"50/14\"]"}), "");  // reduced to 25/7
}

TEST(ConfigErrors, AlgorithmsAndFields) {
  EXPECT_EQ(plan_error(kMinimal, 4, {"algorithms=[native, no-such-algo]"})
                .rfind("config error: algorithms[1] = \"no-such-algo\" is not a registered allgather algorithm (available: ", 0),
            0u);
  const std::string intracomm = plan_error(kMinimal, 4, {"algorithms=[native]", "pair_mode=intracomm"});
  EXPECT_EQ(intracomm.rfind("config error: algorithms[0] = \"native\" supports none of the 1 shapes at 4 processes: ", 0), 0u)
      << intracomm;
  EXPECT_NE(intracomm.find("(remove it or change pair_mode/groups/blocks/sizes)"), std::string::npos);
  EXPECT_EQ(plan_error(kMinimal, 4, {"algorithms=[all, native]"}),
            "config error: algorithms[0] = \"all\" cannot be combined with names (use algorithms: all alone)");
  EXPECT_EQ(plan_error(kMinimal, 4, {"distributions=[arithmetic]"}),
            "config error: distributions is not used by collective allgather (remove it)");
  EXPECT_EQ(plan_error(kMinimal, 4, {"collective=allgatherv", "distributions=[triangular]"}),
            "config error: distributions[0] = \"triangular\" is not a distribution (use equal, arithmetic, random or random:<seed>)");
  EXPECT_EQ(plan_error(kMinimal, 4, {"placements=[block, diagonal]"}),
            "config error: placements[1] = \"diagonal\" is not a placement of collective allgather (use block, "
            "interleaved, nodes, sockets)");
  EXPECT_EQ(plan_error(std::string(kMinimal) + "settings:\n  - name: a\n    neighborhoods: [\"moore:d=2,r=1\"]\n", 4),
            "config error: settings[0].neighborhoods is not used by collective allgather (remove it)");
}

TEST(ConfigErrors, Isomorphic) {
  const std::string iso = "experiment: i\ncollective: neighbor-alltoall\nsizes: 8\n";
  EXPECT_EQ(plan_error(iso, 4, {"dims=2x2"}).rfind("config error: neighborhoods is missing for collective neighbor-alltoall", 0), 0u);
  EXPECT_EQ(plan_error(iso, 4, {"neighborhoods=[\"moore:d=2,r=1\"]", "dims=[2x3]"}),
            "config error: dims[0] = \"2x3\" holds 6 processes, got 4 (use -n 6 or dims: auto)");
  EXPECT_EQ(plan_error(iso, 4, {"neighborhoods=[\"moore:d=2,r=1\"]", "dims=[4]"}),
            "config error: dims[0] = \"4\" has 1 dimensions, the neighborhood has 2 (use auto)");
  EXPECT_EQ(plan_error(iso, 4, {"neighborhoods=[\"blob:d=2\"]", "dims=2x2"}).rfind("config error: neighborhoods[0] = \"blob:d=2\": ", 0), 0u);
  EXPECT_EQ(plan_error(iso, 4, {"neighborhoods=[\"moore:d=2,r=1\"]", "dims=2x2", "placements=[interleaved]"}),
            "config error: placements[0] = \"interleaved\" is not a placement of collective neighbor-alltoall (use block)");
  EXPECT_EQ(plan_error(iso, 4, {"neighborhoods=[\"moore:d=2,r=1\"]", "dims=2x2", "groups={ratios: [1/1]}"}),
            "config error: groups is not used by collective neighbor-alltoall (remove it)");
}
