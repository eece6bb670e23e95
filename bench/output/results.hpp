// The result files of one launch (and slice), written by rank 0 (results/CONTRACT.md):
//   raw-L<L>[-S<S>].csv, summary-L<L>[-S<S>].csv, meta-L<L>[-S<S>].json, and with timing.phases
//   phases-L<L>[-S<S>].csv (a point's phase rows follow its raw rows; a resume keeps them with
//   the point, and measures again a kept point whose phase rows are missing)
// During a run they are <name>.tmp (loaders ignore *.tmp): rows are appended and flushed
// (write + fsync) after every point, the metadata is replaced atomically (written aside as
// meta-L<L>.json.tmp.part, fsynced, renamed); finalize() renames them to their final names (also
// after an interrupt: complete=false). Every failed write, read or rename is an IoError naming
// the file and the system's reason (exit 5); what failed is left as a killed run leaves it, so
// that a re-run resumes. A *.tmp.part file is removed when its write fails, and a stale one
// (a kill while writing aside) by the next ResultFiles of the same launch and slice.
//
// Resume: on opening, the points already complete in earlier runs of the same launch and
// slice (a summary row plus exactly n raw rows, in the final files or in .tmp files left by a
// killed or failed run) are kept and skipped; partial points are dropped and measured again.
// start() cuts a .tmp file that begins with the kept points to them, and otherwise rewrites it
// aside (raw-L<L>.csv.tmp.part, renamed over it), so that a failed start loses no point. Earlier
// files of a different configuration (fingerprint) or process count are an error.
//
// Integrity: finalize() records in the metadata, written last and atomically, each file's
// data rows and SHA-256 and each point's fingerprint (metadata key "integrity",
// results/CONTRACT.md). A resume verifies the final files against it: points whose
// fingerprint differs or that are missing (also, without "integrity", points of a complete
// launch's slice that are missing) are named on stderr and measured again; a launch is
// "already complete" only when its files match.
//
// Compressed files: any final file may be stored gzip-compressed (raw-L<L>.csv.gz, by
// `collrepro-py compact`; collbench itself writes the plain form). A resume reads both
// forms and verifies the plain bytes against the integrity record: a complete compressed launch
// that matches is "already complete" and stays compressed; a launch that must be appended to is
// recovered into the .tmp files as from plain files, and finalize() removes each compressed
// file just before its plain replacement is renamed in (a run killed in between resumes from
// the .tmp files). A directory holding both forms of one file is refused (ConfigError).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "output/fileio.hpp"

namespace collbench {

struct ResultPaths {
  std::filesystem::path raw, summary, meta, phases;
  static ResultPaths of(const std::filesystem::path& dir, int launch, std::optional<int> slice);
};

std::filesystem::path tmp_path(const std::filesystem::path& p);

// A complete point of a launch's files: its summary line, its raw lines and its phases lines
// (no newlines; phases only with timing.phases).
struct PointRows {
  std::string summary;
  std::vector<std::string> raw;
  std::vector<std::string> phases;
};

class ResultFiles {
 public:
  // slices: T of --slice S/T (the chunking must match for the points of a slice to match).
  // phases: timing.phases is on (the phases file is written; a kept point needs its phases).
  ResultFiles(const std::filesystem::path& dir, int launch, std::optional<int> slice, const std::string& fingerprint,
              int nprocs, std::optional<int> slices = std::nullopt, bool phases = false);
  ~ResultFiles();
  ResultFiles(const ResultFiles&) = delete;
  ResultFiles& operator=(const ResultFiles&) = delete;

  const ResultPaths& paths() const { return paths_; }
  // The final files say this launch is complete (same configuration) and nothing is pending.
  bool finished_before() const { return finished_before_; }
  const std::set<int>& complete_points() const { return complete_; }
  const nlohmann::json& previous_meta() const { return previous_meta_; }
  // What the verification of the previous final files found ("" when they match).
  const std::string& damage() const { return damage_; }
  // Repetitions and invalid repetitions of the recovered points (for the invalid rate).
  std::pair<std::size_t, std::size_t> recovered_counts() const { return recovered_counts_; }

  void start();  // the .tmp files: header + recovered points
  void append(const std::vector<std::string>& raw_lines, const std::string& summary_line,
              const std::vector<std::string>& phases_lines = {});
  void write_meta(const nlohmann::json& meta);
  // Closes the files, adds "integrity" to the last metadata written, and renames all three.
  void finalize();

 private:
  void recover(const std::filesystem::path& raw, const std::string& raw_text, const std::filesystem::path& summary,
               const std::string& summary_text);
  static std::optional<std::string> read_if_present(const std::filesystem::path& p);
  void check_previous_meta(const std::string& fingerprint, int nprocs, std::optional<int> slices);
  void verify_final_files(const std::set<int>& from_tmp);
  void recover_phases();  // attaches the phases lines of the recovered points; drops those without
  std::vector<std::filesystem::path> data_paths() const;  // raw, summary (and phases when on)
  nlohmann::json integrity() const;

  ResultPaths paths_;
  bool finished_before_ = false;
  nlohmann::json previous_meta_, meta_;
  std::string damage_;
  std::map<int, PointRows> recovered_;
  std::set<int> complete_;
  std::pair<std::size_t, std::size_t> recovered_counts_{0, 0};
  std::optional<std::string> raw_tmp_, summary_tmp_, phases_tmp_;  // the .tmp files found (until start())
  bool phases_ = false;
  OutFile raw_, summary_, phases_file_;
};

}  // namespace collbench
