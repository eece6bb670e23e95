// Issue #29: collbench's edges. Excerpts of input in messages, the size and nesting caps of the
// configuration and of the metadata a resume reads, I/O errors that name the file and the
// system's reason, and the temporary files of the result writer (removed on failure, stale ones
// removed by the next run, the .tmp files of a failed run kept for the resume).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "config/config.hpp"
#include "output/contract.hpp"
#include "output/csv.hpp"
#include "run/driver.hpp"
#include "error_of.hpp"
#include "base/errors.hpp"
#include "output/fileio.hpp"
#include "output/results.hpp"

namespace collbench {
namespace {

namespace fs = std::filesystem;
using testing::error_of;

struct Dir {
  fs::path path;
  Dir() {
    static int n = 0;
    path = fs::temp_directory_path() / ("collbench-io-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
};

void write(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The files of a directory whose names end in `suffix`.
std::set<std::string> files_ending(const fs::path& dir, const std::string& suffix) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.insert(name);
  }
  return out;
}

// The longest run of character c in s.
std::size_t longest_run(const std::string& s, char c) {
  std::size_t best = 0, run = 0;
  for (char x : s) best = std::max(best, run = x == c ? run + 1 : 0);
  return best;
}

// ------------------------------------------------------------------ excerpts

TEST(Excerpt, ShortTextIsKeptLongTextIsCut) {
  EXPECT_EQ(excerpt("1KiB..1MiB x4"), "1KiB..1MiB x4");
  EXPECT_EQ(excerpt(std::string(60, 'a')), std::string(60, 'a'));
  EXPECT_EQ(excerpt(std::string(61, 'a')), std::string(57, 'a') + "...");
  EXPECT_EQ(excerpt(std::string(50000000, 'a')).size(), 60u);
  EXPECT_EQ(quote(std::string(100, 'b')), "\"" + std::string(57, 'b') + "...\"");
}

TEST(Excerpt, OneLineAndWholeCharacters) {
  EXPECT_EQ(excerpt("a\nb\tc\x01"), "a\\nb\\tc\\x01");
  // 100 two-byte characters: 57 kept whole, never half of one.
  std::string e;
  for (int i = 0; i < 100; ++i) e += "\xc3\xa9";
  std::string want;
  for (int i = 0; i < 57; ++i) want += "\xc3\xa9";
  EXPECT_EQ(excerpt(e), want + "...");
  EXPECT_EQ(one_line("x\ny"), "x\\ny");
  EXPECT_EQ(one_line(std::string(5000, 'z')).size(), kMessageBytes);
}

// ------------------------------------------------------------------ configuration caps

std::string base_config(const std::string& more = "") {
  return "experiment: t\ncollective: allgather\nsizes: [1KiB]\n" + more;
}

TEST(ConfigCaps, AnOversizedFileIsRefusedBeforeItIsRead) {
  Dir dir;
  const fs::path p = dir.path / "big.yaml";
  write(p, base_config());
  fs::resize_file(p, kMaxConfigBytes + 1);  // sparse: nothing is read to find out
  const std::string m = error_of([&] { read_file(p.string()); });
  EXPECT_NE(m.find("over the 1.0 MiB limit of a configuration file"), std::string::npos) << m;
  EXPECT_NE(m.find(p.string()), std::string::npos) << m;
  write(p, base_config());
  EXPECT_EQ(read_file(p.string()), base_config());
}

TEST(ConfigCaps, NotARegularFileAndAMissingFile) {
  Dir dir;
  const fs::path fifo = dir.path / "fifo.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(error_of([&] { read_file(fifo.string()); }).find("is not a regular file"), std::string::npos);
  const std::string m = error_of([&] { read_file((dir.path / "missing.yaml").string()); });
  EXPECT_NE(m.find("cannot read"), std::string::npos) << m;
  EXPECT_NE(m.find("No such file or directory"), std::string::npos) << m;
}

TEST(ConfigCaps, DeepNestingIsOneShortLine) {
  for (const std::string& deep : {std::string(100000, '['), std::string(100000, '{'), std::string(3000, '[') + "1"}) {
    const std::string m = error_of([&] { parse_config(base_config("extra: " + deep + "\n"), {}, "deep.yaml"); });
    EXPECT_EQ(m.rfind("config error: deep.yaml:", 0), 0u) << m.substr(0, 300);
    EXPECT_NE(m.find("nests deeper than 64 levels"), std::string::npos) << m.substr(0, 300);
    EXPECT_LT(m.size(), 300u) << m.substr(0, 300);
    EXPECT_EQ(m.find('\n'), std::string::npos);
  }
  // 70 levels parse as YAML but exceed collbench's own bound.
  const std::string m =
      error_of([&] { parse_config(base_config("extra: " + std::string(70, '[') + std::string(70, ']') + "\n"), {}, "d.yaml"); });
  EXPECT_NE(m.find("nests deeper than 64 levels"), std::string::npos) << m;
  // The same through --set.
  const std::string s = error_of([&] { parse_config(base_config(), {"timing.reps=" + std::string(100000, '[')}, "s.yaml"); });
  EXPECT_EQ(s.rfind("config error: --set timing.reps: the value nests deeper than 64 levels", 0), 0u) << s.substr(0, 300);
  EXPECT_LT(s.size(), 300u);
}

TEST(ConfigCaps, MessagesQuoteAtMostAnExcerpt) {
  const std::string huge(100000, 'x');
  const std::vector<std::string> configs = {
      "experiment: " + huge + "!\ncollective: allgather\nsizes: [1KiB]\n",  // a bad value
      base_config(huge + ": 1\n"),                                          // an unknown key
      base_config("timing: {reps: " + huge + "}\n"),                        // not an integer
      "experiment: t\ncollective: allgather\nsizes: [\"" + huge + "\"]\n",   // a bad size
      base_config("algorithms: [" + huge + "]\n"),                          // an unknown algorithm
      base_config("{" + huge + ": 1}: 2\n"),                                // a key that is a map
  };
  for (const auto& text : configs) {
    const std::string m = error_of([&] {
      const Config c = parse_config(text, {}, "x.yaml");
      (void)c;
      throw ConfigError("parsed");  // the plan checks algorithm names: not reached by every case
    });
    EXPECT_FALSE(m.empty());
    EXPECT_LE(longest_run(m, 'x'), 60u) << m.substr(0, 200);
    EXPECT_EQ(m.find('\n'), std::string::npos);
  }
  const std::string set = error_of([&] { parse_config(base_config(), {huge}, "x.yaml"); });
  EXPECT_LE(longest_run(set, 'x'), 60u) << set.substr(0, 200);
}

// ------------------------------------------------------------------ JSON depth

TEST(JsonDepth, BracketsInStringsDoNotCount) {
  EXPECT_EQ(json_depth("1"), 0u);
  EXPECT_EQ(json_depth("[[1], {\"a\": [2]}]"), 3u);
  EXPECT_EQ(json_depth(R"(["[[[", {"a": "]]\"[["}])"), 2u);
  EXPECT_EQ(json_depth(std::string(1000000, '[')), 1000000u);
}

// ------------------------------------------------------------------ the result writer

nlohmann::json meta_of(const std::string& fingerprint = "abc") {
  return {{"contract_version", contract_version()}, {"config_fingerprint", fingerprint}, {"nprocs", 4}};
}

std::string row(const std::vector<std::string>& columns, int point, const std::vector<std::pair<std::string, std::string>>& more) {
  Row r(columns);
  r.set("experiment", "e").set("launch", "0").set("point", std::to_string(point)).set("mpi_impl", "openmpi");
  r.set("algorithm", "native").set("collective", "allgather");
  for (const auto& [k, v] : more) r.set(k, v);
  return r.line();
}
std::string raw_row(int point, int rep) { return row(raw_columns(), point, {{"rep", std::to_string(rep)}, {"time_s", "1e-05"}}); }
std::string summary_row(int point) { return row(summary_columns(), point, {{"n", "2"}, {"n_invalid", "0"}}); }

// Points 0..n-1 of 2 repetitions each, in .tmp files as a killed run leaves them.
void killed_run(const ResultPaths& p, int n, const std::string& tail = "") {
  write(tmp_path(p.meta), meta_of().dump());
  std::string raw = csv_line(raw_columns()), sum = csv_line(summary_columns());
  for (int i = 0; i < n; ++i) raw += raw_row(i, 0) + raw_row(i, 1), sum += summary_row(i);
  write(tmp_path(p.raw), raw + tail);
  write(tmp_path(p.summary), sum);
}

TEST(ResultIo, AFailedMetadataWriteNamesTheReasonAndLeavesNoPart) {
  Dir dir;
  const auto p = ResultPaths::of(dir.path, 0, std::nullopt);
  ResultFiles files(dir.path, 0, std::nullopt, "abc", 4);
  fs::create_symlink("/dev/full", part_path(tmp_path(p.meta)));  // every write: ENOSPC
  try {
    files.write_meta(meta_of());
    FAIL() << "no error";
  } catch (const IoError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cannot write " + part_path(tmp_path(p.meta)).string() + ": No space left on device"), std::string::npos) << m;
    EXPECT_NE(m.find("(free space and re-run: finished points are kept)"), std::string::npos) << m;
  }
  EXPECT_FALSE(fs::exists(fs::symlink_status(part_path(tmp_path(p.meta)))));
  EXPECT_FALSE(fs::exists(tmp_path(p.meta)));
}

TEST(ResultIo, AFailedStartRemovesTheFilesItCreated) {
  Dir dir;
  const auto p = ResultPaths::of(dir.path, 0, std::nullopt);
  ResultFiles files(dir.path, 0, std::nullopt, "abc", 4);
  files.write_meta(meta_of());
  fs::create_symlink("/dev/full", tmp_path(p.summary));
  EXPECT_THROW(files.start(), IoError);
  EXPECT_FALSE(fs::exists(fs::symlink_status(tmp_path(p.summary))));
  EXPECT_FALSE(fs::exists(tmp_path(p.raw)));  // created, then removed with its partner
  EXPECT_TRUE(fs::exists(tmp_path(p.meta)));  // a resume reads it
}

TEST(ResultIo, StaleParts) {
  Dir dir;
  const auto p = ResultPaths::of(dir.path, 0, std::nullopt);
  const auto other = ResultPaths::of(dir.path, 1, std::nullopt);
  for (const fs::path& f : {p.meta, p.raw, p.summary, other.meta}) write(part_path(tmp_path(f)), "");
  killed_run(p, 2);
  ResultFiles files(dir.path, 0, std::nullopt, "abc", 4);
  // This launch's stale parts are gone, another launch's (perhaps being written) stay, and the
  // .tmp files of the killed run are kept: they hold its points.
  EXPECT_EQ(files_ending(dir.path, ".part"), (std::set<std::string>{"meta-L1.json.tmp.part"}));
  EXPECT_EQ(files.complete_points(), (std::set<int>{0, 1}));
  EXPECT_EQ(files_ending(dir.path, ".tmp").size(), 3u);
}

TEST(ResultIo, StartCutsAKilledRunsFileToItsPoints) {
  Dir dir;
  const auto p = ResultPaths::of(dir.path, 0, std::nullopt);
  killed_run(p, 2, raw_row(2, 0) + "e,0,2,partial");  // point 2 unfinished, a partial line
  ResultFiles files(dir.path, 0, std::nullopt, "abc", 4);
  files.start();
  EXPECT_EQ(read(tmp_path(p.raw)), csv_line(raw_columns()) + raw_row(0, 0) + raw_row(0, 1) + raw_row(1, 0) + raw_row(1, 1));
  files.append({raw_row(2, 0), raw_row(2, 1)}, summary_row(2));
  files.write_meta(meta_of());
  files.finalize();
  EXPECT_EQ(files_ending(dir.path, ".tmp").size() + files_ending(dir.path, ".part").size(), 0u);
  EXPECT_EQ(ResultFiles(dir.path, 0, std::nullopt, "abc", 4).complete_points(), (std::set<int>{0, 1, 2}));
}

TEST(ResultIo, AFailedRewriteKeepsTheKilledRunsPoints) {
  Dir dir;
  const auto p = ResultPaths::of(dir.path, 0, std::nullopt);
  // A damaged row (an unterminated quote) in the middle: the file is rewritten, not cut.
  killed_run(p, 2);
  std::string raw = read(tmp_path(p.raw));
  raw.insert(csv_line(raw_columns()).size(), "\"unterminated,0\n");
  write(tmp_path(p.raw), raw);
  ResultFiles files(dir.path, 0, std::nullopt, "abc", 4);
  EXPECT_EQ(files.complete_points(), (std::set<int>{0, 1}));
  fs::create_symlink("/dev/full", part_path(tmp_path(p.raw)));
  EXPECT_THROW(files.start(), IoError);
  EXPECT_EQ(read(tmp_path(p.raw)), raw);  // untouched
  EXPECT_TRUE(files_ending(dir.path, ".part").empty());
  ResultFiles again(dir.path, 0, std::nullopt, "abc", 4);
  EXPECT_EQ(again.complete_points(), (std::set<int>{0, 1}));
  again.start();
  EXPECT_EQ(read(tmp_path(p.raw)), csv_line(raw_columns()) + raw_row(0, 0) + raw_row(0, 1) + raw_row(1, 0) + raw_row(1, 1));
}

TEST(ResultIo, AKillBetweenTheFinalRenamesKeepsThePoints) {
  // finalize() had renamed raw-L0.csv.tmp when the run was killed: the final raw file and the
  // summary's .tmp file hold the points together, and the resume keeps all of them.
  Dir dir;
  const auto p = ResultPaths::of(dir.path, 0, std::nullopt);
  killed_run(p, 3);
  fs::rename(tmp_path(p.raw), p.raw);
  ResultFiles files(dir.path, 0, std::nullopt, "abc", 4);
  EXPECT_EQ(files.complete_points(), (std::set<int>{0, 1, 2}));
  files.start();
  EXPECT_EQ(read(tmp_path(p.summary)), csv_line(summary_columns()) + summary_row(0) + summary_row(1) + summary_row(2));
}

TEST(ResultIo, MetadataCapsAndDamage) {
  Dir dir;
  const auto p = ResultPaths::of(dir.path, 0, std::nullopt);
  killed_run(p, 1);
  fs::resize_file(tmp_path(p.meta), kMaxMetaBytes + 1);
  std::string m = error_of([&] { ResultFiles(dir.path, 0, std::nullopt, "abc", 4); });
  EXPECT_NE(m.find("meta-L0.json.tmp is 64.0 MiB, over the 64.0 MiB limit"), std::string::npos) << m;
  write(tmp_path(p.meta), std::string(100000, '['));
  m = error_of([&] { ResultFiles(dir.path, 0, std::nullopt, "abc", 4); });
  EXPECT_NE(m.find("meta-L0.json.tmp nests deeper than 64 levels"), std::string::npos) << m;
  write(tmp_path(p.meta), "{\"contract_version\": " + std::string(10000, '7'));
  m = error_of([&] { ResultFiles(dir.path, 0, std::nullopt, "abc", 4); });
  EXPECT_NE(m.find("meta-L0.json.tmp is not valid JSON"), std::string::npos) << m;
  EXPECT_LT(m.size(), 300u);
  nlohmann::json bad = meta_of();
  bad["nprocs"] = "four";
  write(tmp_path(p.meta), bad.dump());
  m = error_of([&] { ResultFiles(dir.path, 0, std::nullopt, "abc", 4); });
  EXPECT_NE(m.find("meta-L0.json is damaged"), std::string::npos) << m;
  bad = meta_of();
  bad["runs"] = "not a list";  // read by the driver, not by ResultFiles: checked here all the same
  write(tmp_path(p.meta), bad.dump());
  m = error_of([&] { ResultFiles(dir.path, 0, std::nullopt, "abc", 4); });
  EXPECT_NE(m.find("meta-L0.json is damaged (\"runs\" has the wrong type)"), std::string::npos) << m;
}

void write_gz(const fs::path& p, const std::string& s) {
  gzFile f = gzopen(p.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, s.data(), static_cast<unsigned>(s.size())), static_cast<int>(s.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

TEST(ResultIo, AResumedCompressedLaunchEndsWithPlainFilesOnly) {
  // A compressed launch being resumed (its points also in the .tmp files): the compressed final
  // files are read as their plain bytes, and finalize() leaves the plain form only.
  Dir dir;
  const auto p = ResultPaths::of(dir.path, 0, std::nullopt);
  killed_run(p, 2);
  write_gz(fs::path(p.raw.string() + ".gz"), read(tmp_path(p.raw)));
  write_gz(fs::path(p.summary.string() + ".gz"), read(tmp_path(p.summary)));
  write_gz(fs::path(p.meta.string() + ".gz"), meta_of().dump());
  ResultFiles files(dir.path, 0, std::nullopt, "abc", 4);
  EXPECT_EQ(files.complete_points(), (std::set<int>{0, 1}));
  files.start();
  files.append({raw_row(2, 0), raw_row(2, 1)}, summary_row(2));
  files.write_meta(meta_of());
  files.finalize();
  for (const fs::path& f : {p.raw, p.summary, p.meta}) {
    EXPECT_TRUE(fs::exists(f)) << f;
    EXPECT_FALSE(fs::exists(f.string() + ".gz")) << f;
  }
  EXPECT_EQ(read(p.summary), csv_line(summary_columns()) + summary_row(0) + summary_row(1) + summary_row(2));
  // Both forms of one file: refused in one line naming both.
  write_gz(fs::path(p.raw.string() + ".gz"), read(p.raw));
  const std::string m = error_of([&] { ResultFiles(dir.path, 0, std::nullopt, "abc", 4); });
  EXPECT_NE(m.find("holds both raw-L0.csv and raw-L0.csv.gz"), std::string::npos) << m;
}

}  // namespace
}  // namespace collbench
