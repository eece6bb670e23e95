// The plan (point order, ids, skips, slices), placements, resume recovery and the MPI
// library string parser. No MPI calls.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "config.hpp"
#include "csv.hpp"
#include "errors.hpp"
#include "placement.hpp"
#include "plan.hpp"
#include "results.hpp"
#include "run_info.hpp"

using namespace collbench;
namespace fs = std::filesystem;

TEST(Plan, OrderIdsAndSkips) {
  const Config c = parse_config(R"(
experiment: p
collective: allgather
pair_mode: intracomm
groups: {ratios: ["1/1", "3/1"]}
blocks: ["1:1", "1:0"]
sizes: [1KiB, 2KiB]
)",
                                {});
  const Plan plan = make_plan(c, 4);
  ASSERT_GT(plan.size(), 0u);
  // Ids are 0..n-1 in enumeration order; native (needs an intercommunicator) is skipped with its reason.
  int expect = 0;
  bool native_skipped = false;
  for (const Candidate& cand : plan.candidates) {
    if (cand.supported) EXPECT_EQ(cand.point, expect++);
    else {
      EXPECT_EQ(cand.point, -1);
      EXPECT_FALSE(cand.reason.empty());
      native_skipped |= cand.algorithm->info().kind == collrepro::Kind::Native;
    }
  }
  EXPECT_TRUE(native_skipped);
  // Algorithms vary fastest, then sizes: the first candidates share the shape.
  EXPECT_EQ(plan.candidates[0].shape, plan.candidates[1].shape);
  EXPECT_EQ(plan.point(0).shape->columns().p, 2);
  EXPECT_EQ(plan.point(0).shape->columns().msg_bytes, 1024u);
  // Half-duplex blocks: kb = 0.
  bool half = false;
  for (std::size_t i = 0; i < plan.size(); ++i) half |= plan.point(i).shape->columns().kb == 0;
  EXPECT_TRUE(half);
  // The plan is deterministic.
  const Plan again = make_plan(c, 4);
  ASSERT_EQ(again.size(), plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    EXPECT_EQ(again.point(i).algorithm, plan.point(i).algorithm);
    EXPECT_EQ(again.point(i).shape->describe(), plan.point(i).shape->describe());
  }
}

TEST(Plan, BlockRatiosAndDistributions) {
  const Config c = parse_config(R"(
experiment: p
collective: allgatherv
algorithms: [native]
groups: {sizes: ["3/2"]}
blocks: ["4:1", "1:4"]
distributions: [equal, arithmetic]
sizes: [1000]
)",
                                {});
  const Plan plan = make_plan(c, 5);
  ASSERT_EQ(plan.size(), 4u);
  // 4:1 equal: ka = 1000, kb = 250. 1:4 equal: ka = 250, kb = 1000.
  EXPECT_EQ(plan.point(0).shape->columns().ka, 1000u);
  EXPECT_EQ(plan.point(0).shape->columns().kb, 250u);
  // 4:1 arithmetic: A's blocks 2(i+1)ceil(1000/3) = 668, 1336, 2004 -> max 2004; B: 2(i+1)ceil(250/2) -> 500.
  EXPECT_EQ(plan.point(1).shape->columns().ka, 2004u);
  EXPECT_EQ(plan.point(1).shape->columns().kb, 500u);
  EXPECT_EQ(plan.point(2).shape->columns().ka, 250u);
  EXPECT_EQ(plan.point(2).shape->columns().kb, 1000u);
  EXPECT_EQ(plan.point(3).shape->columns().msg_bytes, 1000u);
}

TEST(Plan, Slices) {
  for (std::size_t n : {0u, 1u, 7u, 10u, 101u})
    for (int t : {1, 2, 3, 8}) {
      std::size_t next = 0;
      for (int s = 0; s < t; ++s) {
        const auto [b, e] = slice_range(n, s, t);
        EXPECT_EQ(b, next);
        EXPECT_LE(e - b, n / static_cast<std::size_t>(t) + 1);
        next = e;
      }
      EXPECT_EQ(next, n);
    }
}

TEST(Placement, BlockAndInterleaved) {
  const std::vector<RankLocality> one_node(6);
  EXPECT_EQ(place_groups("block", 4, 2, one_node).sides, (std::vector<int>{0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(place_groups("interleaved", 3, 3, one_node).sides, (std::vector<int>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(place_groups("block", 2, 2, one_node).sides, (std::vector<int>{0, 0, 1, 1, -1, -1}));
  EXPECT_THROW(place_groups("block", 5, 2, one_node), std::invalid_argument);
  EXPECT_THROW(place_groups("spiral", 1, 1, one_node), std::invalid_argument);
}

TEST(Placement, NodesAndSockets) {
  // Two nodes, ranks round-robin over them: 0,2,4 on node 0; 1,3,5 on node 1.
  std::vector<RankLocality> rr = {{0, 0}, {1, 0}, {0, 0}, {1, 0}, {0, 0}, {1, 0}};
  auto r = place_groups("nodes", 3, 3, rr);
  EXPECT_EQ(r.sides, (std::vector<int>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(r.effective, "nodes");
  EXPECT_TRUE(r.note.empty());
  r = place_groups("nodes", 4, 2, rr);
  EXPECT_NE(r.note.find("1 node(s) hold ranks of both groups"), std::string::npos);
  // One node with two packages: nodes falls back to packages.
  std::vector<RankLocality> pk = {{0, 0}, {0, 1}, {0, 0}, {0, 1}};
  r = place_groups("nodes", 2, 2, pk);
  EXPECT_EQ(r.sides, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(r.effective, "sockets");
  EXPECT_NE(r.note.find("one node"), std::string::npos);
  // One package: block with a note; unbound ranks: block with a note.
  std::vector<RankLocality> flat = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
  r = place_groups("sockets", 2, 2, flat);
  EXPECT_EQ(r.effective, "block");
  EXPECT_NE(r.note.find("one package per node"), std::string::npos);
  std::vector<RankLocality> unbound = {{0, -1}, {0, -1}};
  r = place_groups("sockets", 1, 1, unbound);
  EXPECT_EQ(r.effective, "block");
  EXPECT_NE(r.note.find("not bound"), std::string::npos);
}

TEST(RunInfo, MpiLibraryStrings) {
  auto m = parse_mpi_library("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022");
  EXPECT_EQ(m.impl, "openmpi");
  EXPECT_EQ(m.version, "4.1.4");
  m = parse_mpi_library("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\nMPICH ABI:\t14:2:2\n");
  EXPECT_EQ(m.impl, "mpich");
  EXPECT_EQ(m.version, "4.0.2");
  EXPECT_EQ(m.library, "MPICH Version:\t4.0.2");
}

namespace {

struct TempDir {
  fs::path path;
  TempDir() : path(fs::temp_directory_path() / ("collbench-test-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string raw_row(int point, int rep) {
  std::vector<std::string> f = {"e", "0", std::to_string(point), "2024-01-01T00:00:00.000Z", "openmpi", "4.1.4", "1", "4", "4",
                                "block", "allgather", "native", "fully-connected", "2", "2", "8", "8", "", "", "8",
                                "barrier", "monotonic", std::to_string(rep), "1e-05", "1"};
  return csv_line(f);
}

std::string summary_row(int point, int n) {
  std::vector<std::string> f = {"e", "0", std::to_string(point), "openmpi", "4.1.4", "1", "4", "4", "block", "allgather",
                                "native", "fully-connected", "2", "2", "8", "8", "", "", "8", "barrier", "monotonic",
                                std::to_string(n), "1", "1", "3", "1e-05", "1e-05", "1e-05", "1e-05", "1e-05", "1e-05",
                                "1", "2", "1", "2"};
  return csv_line(f);
}

void write(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

}  // namespace

TEST(Results, RecoversCompletePointsOnly) {
  TempDir dir;
  const auto paths = ResultPaths::of(dir.path, 0, std::nullopt);
  write(tmp_path(paths.meta), nlohmann::json{{"config_fingerprint", "abc"}, {"nprocs", 4}}.dump());
  // Point 0: complete (2 rows + summary). Point 1: summary but one raw row missing. Point 2:
  // raw rows only (killed before its summary). A partial last line is ignored.
  std::string raw = csv_line(raw_columns()) + raw_row(0, 0) + raw_row(0, 1) + raw_row(1, 0) + raw_row(2, 0) + raw_row(2, 1);
  std::string sum = csv_line(summary_columns()) + summary_row(0, 2) + summary_row(1, 2);
  write(tmp_path(paths.raw), raw + "e,0,3,partial");
  write(tmp_path(paths.summary), sum);
  {
    ResultFiles files(dir.path, 0, std::nullopt, "abc", 4);
    EXPECT_FALSE(files.finished_before());
    EXPECT_EQ(files.complete_points(), (std::set<int>{0}));
    EXPECT_EQ(files.recovered_counts().first, 2u);
    EXPECT_EQ(files.recovered_counts().second, 1u);
    files.start();
    files.append({raw_row(5, 0), raw_row(5, 1)}, summary_row(5, 2));
    files.write_meta({{"config_fingerprint", "abc"}, {"nprocs", 4}, {"complete", true}});
    files.finalize();
  }
  EXPECT_FALSE(fs::exists(tmp_path(paths.raw)));
  std::ifstream in(paths.raw);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u);  // header + point 0 (2) + point 5 (2)
  // A finished launch is recognized; another configuration or process count is refused.
  EXPECT_TRUE(ResultFiles(dir.path, 0, std::nullopt, "abc", 4).finished_before());
  try {
    ResultFiles(dir.path, 0, std::nullopt, "xyz", 4);
    FAIL() << "no error for another configuration";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("of a different configuration (fingerprint abc, now xyz)"), std::string::npos);
  }
  EXPECT_THROW(ResultFiles(dir.path, 0, std::nullopt, "abc", 8), ConfigError);
  // Another launch or slice in the same directory is independent.
  EXPECT_FALSE(ResultFiles(dir.path, 1, std::nullopt, "xyz", 8).finished_before());
  EXPECT_FALSE(ResultFiles(dir.path, 0, 2, "xyz", 8).finished_before());
  EXPECT_EQ(ResultPaths::of(dir.path, 3, 1).raw.filename(), "raw-L3-S1.csv");
}
