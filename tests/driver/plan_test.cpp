// The plan (point order, ids, skips, slices), placements, resume recovery and the MPI
// library string parser. No MPI calls.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "config/config.hpp"
#include "output/contract.hpp"
#include "output/csv.hpp"
#include "output/plan_listing.hpp"
#include "config/distribution.hpp"
#include "error_of.hpp"
#include "base/errors.hpp"
#include "config/placement.hpp"
#include "families/plan.hpp"
#include "output/results.hpp"
#include "output/run_info.hpp"

using namespace collbench;
namespace fs = std::filesystem;

namespace {

// The value of a shape column of point i ("" when its family does not fill it).
std::string column(const Plan& plan, std::size_t i, const std::string& name) {
  for (const auto& [c, v] : plan.point(i).shape->columns())
    if (c == name) return v;
  return "";
}


}  // namespace

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
  EXPECT_EQ(column(plan, 0, "p"), "2");
  EXPECT_EQ(plan.point(0).shape->msg_bytes(), 1024u);
  // Half-duplex blocks: kb = 0.
  bool half = false;
  for (std::size_t i = 0; i < plan.size(); ++i) half |= column(plan, i, "kb") == "0";
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
  EXPECT_EQ(column(plan, 0, "ka"), "1000");
  EXPECT_EQ(column(plan, 0, "kb"), "250");
  EXPECT_EQ(column(plan, 0, "bytes_a"), "3000");
  EXPECT_EQ(column(plan, 0, "distribution"), "equal");
  // 4:1 arithmetic: A's blocks 2(i+1)ceil(1000/3) = 668, 1336, 2004 -> max 2004, sum 4008;
  // B: 2(i+1)ceil(250/2) = 250, 500 -> max 500, sum 750.
  EXPECT_EQ(column(plan, 1, "ka"), "2004");
  EXPECT_EQ(column(plan, 1, "kb"), "500");
  EXPECT_EQ(column(plan, 1, "bytes_a"), "4008");
  EXPECT_EQ(column(plan, 1, "bytes_b"), "750");
  EXPECT_EQ(column(plan, 1, "distribution"), "arithmetic");
  EXPECT_EQ(column(plan, 2, "ka"), "250");
  EXPECT_EQ(column(plan, 2, "kb"), "1000");
  EXPECT_EQ(plan.point(3).shape->msg_bytes(), 1000u);
}

TEST(Plan, RandomDistributionHasASeedColumn) {
  const Config c = parse_config(R"(
experiment: p
collective: allgatherv
algorithms: [native]
groups: {sizes: ["3/2"]}
distributions: [random, "random:7"]
sizes: [1000]
)",
                                {});
  const Plan plan = make_plan(c, 5);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(column(plan, 0, "distribution"), "random");
  EXPECT_EQ(column(plan, 0, "dist_seed"), "0");
  EXPECT_EQ(column(plan, 1, "dist_seed"), "7");
  // Different seeds give different block sizes; the largest block is no longer msg_bytes.
  EXPECT_NE(column(plan, 0, "bytes_a"), column(plan, 1, "bytes_a"));
  EXPECT_NE(column(plan, 0, "ka"), "1000");
}

TEST(Plan, IntraFamilyShapes) {
  const Config c = parse_config(R"(
experiment: p
settings:
  - {name: ag, collective: intra-allgather, sizes: [64]}
  - {name: g, collective: intra-gather, roots: [0, 2], sizes: [64]}
  - {name: agv, collective: intra-allgatherv, distributions: [arithmetic], sizes: [64]}
)",
                                {});
  const Plan plan = make_plan(c, 4);
  std::set<std::string> names;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    EXPECT_EQ(plan.point(i).family->name(), "intra");
    names.insert(plan.point(i).algorithm->info().name);
  }
  // Every registered intra-allgather(v) and intra-gather algorithm, the catalogue's (no hand list).
  std::set<std::string> registered;
  for (const auto* a : collrepro::Registry::global().all())
    if (a->info().collective == collrepro::Collective::IntraAllgather || a->info().collective == collrepro::Collective::IntraAllgatherv ||
        a->info().collective == collrepro::Collective::IntraGather)
      registered.insert(a->info().name);
  EXPECT_TRUE(names.count("native") && names.count("gather-bcast"));
  EXPECT_EQ(names, registered);
  EXPECT_EQ(column(plan, 0, "bytes_total"), "256");
  EXPECT_EQ(collbench::testing::error_of([&] { make_plan(parse_config(R"(
experiment: p
collective: intra-bcast
roots: [4]
sizes: [64]
)", {}), 4); }), "config error: roots[0] = 4 is not a rank of 4 processes (use 0..3)");
}

TEST(Plan, CallFormsAreTheInnermostAxis) {
  const std::string yaml = R"(
experiment: p
collective: allgatherv
groups: {ratios: ["1/1"]}
distributions: [equal]
sizes: [1KiB, 2KiB]
algorithms: [fullduplex-allgatherv, fullduplex-allgatherv-ordered]
)";
  // Without the key: blocking only, the ids of before (one point per algorithm and size).
  const Plan blocking = make_plan(parse_config(yaml, {}), 4);
  ASSERT_EQ(blocking.size(), 4u);
  for (std::size_t i = 0; i < blocking.size(); ++i) EXPECT_EQ(blocking.point(i).call, collrepro::CallForm::Blocking);
  // With it: per (size, algorithm) the forms in the key's order; fullduplex-allgatherv-ordered
  // offers blocking only, so its other forms are skipped with the reason, as an unsupported shape is.
  const Plan forms = make_plan(parse_config(yaml + "call: [persistent, blocking, nonblocking]\n", {}), 4);
  ASSERT_EQ(forms.candidates.size(), 12u);
  EXPECT_EQ(forms.size(), 8u);
  using collrepro::CallForm;
  const std::vector<CallForm> order = {CallForm::Persistent, CallForm::Blocking, CallForm::Nonblocking};
  for (std::size_t i = 0; i < forms.candidates.size(); ++i) {
    const Candidate& c = forms.candidates[i];
    EXPECT_EQ(c.call, order[i % 3]) << i;
    const bool blocking_only = c.algorithm->info().name == "fullduplex-allgatherv-ordered";
    EXPECT_EQ(c.supported, !blocking_only || c.call == CallForm::Blocking) << i;
    if (!c.supported) {
      EXPECT_EQ(c.reason, "offers no " + std::string(collrepro::to_string(c.call)) + " call (its forms: blocking)");
    }
  }
  // A sweep that asks only for a form the named algorithm lacks is refused in one line.
  EXPECT_EQ(collbench::testing::error_of([&] { make_plan(parse_config(yaml + "call: persistent\n", {}), 4); }),
            "config error: algorithms[1] = \"fullduplex-allgatherv-ordered\" supports none of the 2 shapes at 4 processes: offers no "
            "persistent call (its forms: blocking) (e.g. p=2 q=2 ka=1KiB kb=1KiB size=1KiB call=persistent) (remove it "
            "or change call)");
}

namespace {

// The dry-run listing (--dry-run --format csv): one map per row, column -> cell. Splits at
// every comma: only the cells before the first that may hold one (a neighborhood, a reason)
// are read right, which the inter-group shape columns are.
std::vector<std::map<std::string, std::string>> listing_rows(const Plan& plan) {
  std::ostringstream out;
  print_plan_csv(out, plan, 0, plan.size());
  std::istringstream in(out.str());
  const auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::istringstream cells_in(line);
    for (std::string cell; std::getline(cells_in, cell, ',');) cells.push_back(cell);
    return cells;
  };
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split(line);
    auto& row = rows.emplace_back();
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
  }
  return rows;
}

}  // namespace

TEST(Plan, PairModeIsAnInterGroupShapeColumnOfEveryRow) {
  const Config c = parse_config(R"(
experiment: p
sizes: [1KiB]
settings:
  - {name: intra-pair, collective: allgather, pair_mode: intracomm, blocks: ["1:0"]}
  - {name: inter-pair, collective: allgatherv}
  - {name: one-group, collective: intra-allgather}
)",
                                {});
  const Plan plan = make_plan(c, 4);
  const auto rows = listing_rows(plan);
  ASSERT_EQ(rows.size(), plan.candidates.size());
  ASSERT_TRUE(rows.front().count("pair_mode"));  // a column of the listing
  const std::map<std::string, std::string> expected = {
      {"intra-pair", "intracomm"}, {"inter-pair", "intercomm"}, {"one-group", ""}};
  std::set<std::string> seen;
  for (const auto& row : rows) {
    const std::string& setting = row.at("setting");
    ASSERT_TRUE(expected.count(setting)) << setting;
    EXPECT_EQ(row.at("pair_mode"), expected.at(setting)) << setting << " " << row.at("algorithm");
    seen.insert(setting);
  }
  EXPECT_EQ(seen.size(), expected.size());
  // The written rows take it from the same shape (set_candidate): the point's own columns.
  for (std::size_t i = 0; i < plan.size(); ++i)
    EXPECT_EQ(column(plan, i, "pair_mode"), expected.at(plan.point(i).setting)) << i;
}

// A family's shape columns are stated once, in the contract (families.<name>.shape): every point
// of every family fills exactly those, so a column added there and computed by the family's
// shape needs no other edit.
TEST(Plan, EveryPointFillsExactlyItsFamilysContractShapeColumns) {
  const Config c = parse_config(R"(
experiment: s
sizes: [1KiB]
settings:
  - {name: inter, collective: allgatherv, distributions: [equal, random]}
  - {name: intra, collective: intra-allgather}
  - {name: iso, collective: neighbor-alltoallw, neighborhoods: ["moore:d=2,r=1"], dims: ["2x2"]}
)",
                                {});
  const Plan plan = make_plan(c, 4);
  std::set<std::string> families;
  for (const Candidate& k : plan.candidates) {
    std::vector<std::string> filled;
    for (const auto& [column, value] : k.shape->columns()) filled.push_back(column);
    EXPECT_EQ(filled, contract_shape_columns(k.family->name())) << k.family->name() << " " << k.setting;
    families.insert(k.family->name());
  }
  EXPECT_EQ(families.size(), 3u);
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

// A row of a native allgather point, every value bound to its column by name.
Row row_of(const std::vector<std::string>& columns, int point) {
  Row r(columns);
  r.set("experiment", "e").set("launch", "0").set("point", std::to_string(point)).set("mpi_impl", "openmpi");
  r.set("mpi_version", "4.1.4").set("nodes", "1").set("nprocs", "4").set("ppn", "4").set("placement", "block");
  r.set("family", "inter-group").set("collective", "allgather").set("algorithm", "native");
  r.set("topology", "fully-connected").set("msg_bytes", "8").set("p", "2").set("q", "2").set("ka", "8").set("kb", "8");
  r.set("bytes_a", "16").set("bytes_b", "16").set("distribution", "equal").set("sync", "barrier").set("clock", "monotonic");
  return r;
}

std::string raw_row(int point, int rep) {
  Row r = row_of(raw_columns(), point);
  r.set("utc", "2024-01-01T00:00:00.000Z").set("rep", std::to_string(rep)).set("time_s", "1e-05").set("valid", "1");
  return r.line();
}

std::string summary_row(int point, int n) {
  Row r = row_of(summary_columns(), point);
  r.set("n", std::to_string(n)).set("n_invalid", "1").set("n_kept", "1").set("k", "3");
  for (const char* stat : {"median", "q1", "q3", "min", "max", "mean"}) r.set(stat, "1e-05");
  r.set("cost_alpha_terms", "1").set("cost_beta_bytes", "2").set("bound_alpha_terms", "1").set("bound_beta_bytes", "2");
  return r.line();
}

void write(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

}  // namespace

TEST(Results, RecoversCompletePointsOnly) {
  TempDir dir;
  const auto paths = ResultPaths::of(dir.path, 0, std::nullopt);
  write(tmp_path(paths.meta),
        nlohmann::json{{"contract_version", contract_version()}, {"config_fingerprint", "abc"}, {"nprocs", 4}}.dump());
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
    files.write_meta({{"contract_version", contract_version()}, {"config_fingerprint", "abc"}, {"nprocs", 4}, {"complete", true}});
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

namespace {

// A finished launch of points 0..2 (2 repetitions each) with its integrity record, then `damage`
// applied to its final files; returns the points a resume keeps.
std::set<int> resume_after(const std::function<void(const ResultPaths&)>& damage, std::string* message = nullptr) {
  TempDir dir;
  const auto paths = ResultPaths::of(dir.path, 0, std::nullopt);
  {
    ResultFiles files(dir.path, 0, std::nullopt, "abc", 4);
    files.start();
    for (int p = 0; p < 3; ++p) files.append({raw_row(p, 0), raw_row(p, 1)}, summary_row(p, 2));
    files.write_meta({{"contract_version", contract_version()}, {"config_fingerprint", "abc"}, {"nprocs", 4}, {"complete", true},
                      {"points", {{"slice_begin", 0}, {"slice_end", 3}}}});
    files.finalize();
  }
  damage(paths);
  ResultFiles again(dir.path, 0, std::nullopt, "abc", 4);
  if (message) *message = again.damage();
  EXPECT_EQ(again.finished_before(), again.damage().empty());
  return again.complete_points();
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

// Issue #17, F5: a resume trusts only files that match the metadata's integrity record.
TEST(Results, ResumeVerifiesTheFilesAgainstTheMetadata) {
  EXPECT_EQ(resume_after([](const ResultPaths&) {}), (std::set<int>{}));  // intact: already complete
  std::string message;
  // Truncation: the summary loses its last row.
  EXPECT_EQ(resume_after([](const ResultPaths& p) {
              std::string s = read(p.summary);
              write(p.summary, s.substr(0, s.rfind('\n', s.size() - 2) + 1));
            }, &message),
            (std::set<int>{0, 1}));
  EXPECT_NE(message.find("summary-L0.csv has 2 data rows, the metadata says 3: point(s) 2 damaged or missing"),
            std::string::npos) << message;
  // Deleted rows: one raw row of point 1.
  EXPECT_EQ(resume_after([](const ResultPaths& p) {
              std::string s = read(p.raw);
              const auto at = s.find(raw_row(1, 0));
              write(p.raw, s.erase(at, raw_row(1, 0).size()));
            }, &message),
            (std::set<int>{0, 2}));
  EXPECT_NE(message.find("raw-L0.csv has 5 data rows, the metadata says 6"), std::string::npos) << message;
  // A flipped byte in a time of point 2 (the row still parses).
  EXPECT_EQ(resume_after([](const ResultPaths& p) {
              std::string s = read(p.raw);
              s[s.rfind("1e-05") + 4] = '6';
              write(p.raw, s);
            }, &message),
            (std::set<int>{0, 1}));
  EXPECT_NE(message.find("raw-L0.csv's SHA-256 differs from the metadata's: point(s) 2 damaged or missing"),
            std::string::npos) << message;
  // Metadata without an integrity record (older files): missing points of a complete launch.
  EXPECT_EQ(resume_after([](const ResultPaths& p) {
              auto meta = nlohmann::json::parse(read(p.meta));
              meta.erase("integrity");
              write(p.meta, meta.dump());
              write(p.summary, csv_line(summary_columns()));
            }),
            (std::set<int>{}));
}

// The same values are asserted for the Python tools (tests/python/test_distributions.py),
// which recompute the block sizes from the CSV's distribution and dist_seed columns.
TEST(Distribution, RandomIsTheSharedGenerator) {
  Distribution d;
  d.kind = Distribution::Kind::Random;
  EXPECT_EQ(distribute(d, 4096, 7), (std::vector<std::size_t>{1905, 8040, 7478, 1342, 3079, 2760, 3093}));
  d.seed = 7;
  EXPECT_EQ(distribute(d, 4096, 7), (std::vector<std::size_t>{6376, 4760, 7314, 2037, 1618, 1336, 5691}));
  d.kind = Distribution::Kind::Arithmetic;
  EXPECT_EQ(distribute(d, 4096, 7), (std::vector<std::size_t>{1172, 2344, 3516, 4688, 5860, 7032, 8204}));
}
