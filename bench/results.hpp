// The result files of one launch (and slice), written by rank 0 (results/CONTRACT.md):
//   raw-L<L>[-S<S>].csv, summary-L<L>[-S<S>].csv, meta-L<L>[-S<S>].json
// During a run they are <name>.tmp (loaders ignore *.tmp): rows are appended and flushed
// (fflush + fsync) after every point, the metadata is replaced atomically; finalize()
// renames them to their final names (also after an interrupt: complete=false).
//
// Resume: on opening, the points already complete in earlier runs of the same launch and
// slice (a summary row plus exactly n raw rows, in the final files or in .tmp files left by a
// killed run) are kept and skipped; partial points are dropped and measured again. Earlier
// files of a different configuration (fingerprint) or process count are an error.
#pragma once

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collbench {

struct ResultPaths {
  std::filesystem::path raw, summary, meta;
  static ResultPaths of(const std::filesystem::path& dir, int launch, std::optional<int> slice);
};

std::filesystem::path tmp_path(const std::filesystem::path& p);

class ResultFiles {
 public:
  // slices: T of --slice S/T (the chunking must match for the points of a slice to match).
  ResultFiles(const std::filesystem::path& dir, int launch, std::optional<int> slice, const std::string& fingerprint,
              int nprocs, std::optional<int> slices = std::nullopt);
  ~ResultFiles();
  ResultFiles(const ResultFiles&) = delete;
  ResultFiles& operator=(const ResultFiles&) = delete;

  const ResultPaths& paths() const { return paths_; }
  // The final files say this launch is complete (same configuration) and nothing is pending.
  bool finished_before() const { return finished_before_; }
  const std::set<int>& complete_points() const { return complete_; }
  const nlohmann::json& previous_meta() const { return previous_meta_; }
  // Repetitions and invalid repetitions of the recovered points (for the invalid rate).
  std::pair<std::size_t, std::size_t> recovered_counts() const { return recovered_counts_; }

  void start();  // writes the .tmp files: header + recovered points
  void append(const std::vector<std::string>& raw_lines, const std::string& summary_line);
  void write_meta(const nlohmann::json& meta);
  void finalize();

 private:
  struct Recovered {
    std::string summary;
    std::vector<std::string> raw;
  };
  void recover_from(const std::filesystem::path& raw, const std::filesystem::path& summary);
  void check_previous_meta(const std::string& fingerprint, int nprocs, std::optional<int> slices);

  ResultPaths paths_;
  bool finished_before_ = false;
  nlohmann::json previous_meta_;
  std::map<int, Recovered> recovered_;
  std::set<int> complete_;
  std::pair<std::size_t, std::size_t> recovered_counts_{0, 0};
  std::FILE* raw_ = nullptr;
  std::FILE* summary_ = nullptr;
};

}  // namespace collbench
