#include "output/results.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdint>
#include <iostream>
#include <limits>

#include "output/contract.hpp"
#include "output/csv.hpp"
#include "output/file_codecs.hpp"
#include "base/errors.hpp"
#include "output/fileio.hpp"

namespace collbench {

namespace fs = std::filesystem;

namespace {

std::string suffix(int launch, std::optional<int> slice) {
  return "L" + std::to_string(launch) + (slice ? "-S" + std::to_string(*slice) : "");
}

// The whole file (a result file of any size); a failure to read it is an IoError, a file that
// is not a regular file a ConfigError.
std::string read_all(const fs::path& p) {
  std::string text;
  ReadFailure why;
  if (read_bounded(p, std::numeric_limits<std::uintmax_t>::max(), text, why)) return text;
  if (why.not_regular)
    throw ConfigError("config error: --out " + p.parent_path().string() + ": " + p.filename().string() +
                      " is not a regular file (remove it or use another --out)");
  throw io_error("read", p.string(), why.err, "check the file and re-run: finished points are kept");
}

// The complete lines of a text (a last line without '\n' is a partial write: dropped).
std::vector<std::string> complete_lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) out.push_back(text.substr(at, nl - at));
  return out;
}

// Whether p exists (a failure to look is an IoError: the directory is not searchable).
bool present(const fs::path& p) {
  std::error_code ec;
  const bool there = fs::exists(p, ec);
  if (ec) throw io_error("look for", p.string(), ec.value());
  return there;
}

// The compressed form of a final result file (raw-L0.csv.gz: exactly the bytes of raw-L0.csv,
// gzip; written by `collrepro-py compact`, never by collbench).
fs::path gz_path(const fs::path& p) { return fs::path(p.string() + ".gz"); }

// Which form of the final file p is there: p, its .gz, or nullopt. Both is a ConfigError (one
// launch's file in two forms: which one is right cannot be told).
std::optional<fs::path> final_form(const fs::path& p) {
  const bool plain = present(p), packed = present(gz_path(p));
  if (plain && packed)
    throw ConfigError("config error: --out " + p.parent_path().string() + " holds both " + p.filename().string() +
                      " and " + gz_path(p).filename().string() +
                      " (one file in two forms): run `collrepro-py compact " + p.parent_path().string() +
                      "` (it keeps one when they are equal) or remove the stale one");
  if (plain) return p;
  if (packed) return gz_path(p);
  return std::nullopt;
}

bool final_present(const fs::path& p) { return final_form(p).has_value(); }

// The plain bytes of the final file p in either form (read_all's errors; a damaged or oversized
// .gz file is a ConfigError naming it).
std::string read_final(const fs::path& p, std::uintmax_t limit = std::numeric_limits<std::uintmax_t>::max()) {
  const auto form = final_form(p);
  if (!form || *form == p) return read_all(p);
  std::string text, problem;
  if (!gunzip(read_all(*form), limit, text, problem))
    throw ConfigError("config error: --out " + p.parent_path().string() + ": " + form->filename().string() + ": " +
                      problem + " (restore it, or remove this launch's files to measure it again)");
  return text;
}

std::size_t data_rows(const std::string& text) {
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  return lines == 0 ? 0 : lines - 1;
}

// A point's fingerprint: the first 16 hex digits of the SHA-256 of its summary line and its
// raw lines, each with its newline, in file order.
std::string point_hash(const std::string& summary, const std::vector<std::string>& raw) {
  std::string text = summary + "\n";
  for (const auto& line : raw) text += line + "\n";
  return sha256(text).substr(0, 16);
}

std::string join_points(const std::set<int>& points) {
  std::string out;
  for (int p : points) out += (out.empty() ? "" : ", ") + std::to_string(p);
  return out;
}

std::optional<nlohmann::json> parse_meta(const fs::path& p, const std::string& text, std::string& problem);

// A launch's metadata: nullopt when absent; `problem` says why one present cannot be used (not
// valid JSON, nested too deeply). A file over kMaxMetaBytes is refused before it is read.
// either_form: p is a final file, read from its compressed form when that is the one there.
std::optional<nlohmann::json> read_json(const fs::path& p, std::string& problem, bool either_form = false) {
  if (either_form) {
    const auto form = final_form(p);
    if (form && *form != p) return parse_meta(*form, read_final(p, kMaxMetaBytes), problem);
  }
  if (!present(p)) return std::nullopt;
  std::string text;
  ReadFailure why;
  if (!read_bounded(p, kMaxMetaBytes, text, why)) {
    if (why.too_large)
      throw ConfigError("config error: --out " + p.parent_path().string() + ": " + p.filename().string() + " is " +
                        format_file_size(why.size) + ", over the " + format_file_size(kMaxMetaBytes) +
                        " limit of a collbench metadata file (not collbench's: remove it or use another --out)");
    if (why.not_regular)
      throw ConfigError("config error: --out " + p.parent_path().string() + ": " + p.filename().string() +
                        " is not a regular file (remove it or use another --out)");
    throw io_error("read", p.string(), why.err, "check the file and re-run: finished points are kept");
  }
  return parse_meta(p, text, problem);
}

std::optional<nlohmann::json> parse_meta(const fs::path& p, const std::string& text, std::string& problem) {
  if (json_depth(text) > kMaxJsonDepth) {
    problem = p.filename().string() + " nests deeper than " + std::to_string(kMaxJsonDepth) + " levels";
    return std::nullopt;
  }
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    if (j.is_object()) return j;
    problem = p.filename().string() + " is not a JSON object";
  } catch (const nlohmann::json::parse_error& e) {
    problem = p.filename().string() + " is not valid JSON (at byte " + std::to_string(e.byte) + ")";
  } catch (const nlohmann::json::exception& e) {  // e.g. a number too large
    problem = p.filename().string() + " is not valid JSON (" + excerpt(e.what()) + ")";
  }
  return std::nullopt;
}

std::size_t column(const std::vector<std::string>& cols, const char* name) {
  for (std::size_t i = 0; i < cols.size(); ++i)
    if (cols[i] == name) return i;
  return cols.size();
}

// The fields of a CSV row; none for a row that does not parse (an unterminated quote: damaged).
std::vector<std::string> split_row(const std::string& line) {
  try {
    return csv_split(line);
  } catch (const std::invalid_argument&) {
    return {};
  }
}

// A non-negative decimal field, or nullopt (a damaged row).
std::optional<long> count_field(const std::string& text) {
  if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stol(text);
}

// The complete points of a launch's lines (headers first): a summary row plus exactly n raw
// rows. Rows that do not parse are left out.
std::map<int, PointRows> points_of(const std::vector<std::string>& raw_lines,
                                   const std::vector<std::string>& summary_lines) {
  const auto& rc = raw_columns();
  const auto& sc = summary_columns();
  const std::size_t point_col = column(rc, "point"), n_col = column(sc, "n");
  std::map<long, std::vector<std::string>> raw_by_point;
  for (std::size_t i = 1; i < raw_lines.size(); ++i) {
    const auto f = split_row(raw_lines[i]);
    if (f.size() != rc.size()) continue;
    if (const auto point = count_field(f[point_col])) raw_by_point[*point].push_back(raw_lines[i]);
  }
  std::map<int, PointRows> out;
  for (std::size_t i = 1; i < summary_lines.size(); ++i) {
    const auto f = split_row(summary_lines[i]);
    if (f.size() != sc.size()) continue;
    const auto point = count_field(f[point_col]), n = count_field(f[n_col]);
    if (!point || !n || *point > std::numeric_limits<int>::max() || out.count(static_cast<int>(*point))) continue;
    auto it = raw_by_point.find(*point);
    if (it == raw_by_point.end() || it->second.size() != static_cast<std::size_t>(*n)) continue;
    out[static_cast<int>(*point)] = {summary_lines[i], it->second, {}};
  }
  return out;
}

// The lines joined, each with its newline.
std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

}  // namespace

ResultPaths ResultPaths::of(const fs::path& dir, int launch, std::optional<int> slice) {
  const std::string s = suffix(launch, slice);
  return {dir / ("raw-" + s + ".csv"), dir / ("summary-" + s + ".csv"), dir / ("meta-" + s + ".json"),
          dir / ("phases-" + s + ".csv")};
}

fs::path tmp_path(const fs::path& p) { return fs::path(p.string() + ".tmp"); }

ResultFiles::ResultFiles(const fs::path& dir, int launch, std::optional<int> slice, const std::string& fingerprint,
                         int nprocs, std::optional<int> slices, bool phases)
    : paths_(ResultPaths::of(dir, launch, slice)), phases_(phases) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    // The system refused the directory (a file in the way, permission, no space): exit 5, as
    // every other tool's refused output (docs/exit-codes.md).
    const int err = ec.value();
    const bool path_shape = err == ENOTDIR || err == EEXIST || err == ENAMETOOLONG || err == ELOOP;
    throw io_error("create the output directory", dir.string(), err,
                   path_shape ? "use another --out" : "check --out and re-run: finished points are kept");
  }
  // What a run killed while writing aside left (never the .tmp files: they hold its points).
  for (const fs::path& p : {paths_.raw, paths_.summary, paths_.meta, paths_.phases}) remove_quietly(part_path(tmp_path(p)));
  try {
    for (const fs::path& p : {paths_.raw, paths_.summary, paths_.meta, paths_.phases}) final_form(p);  // not both forms
    check_previous_meta(fingerprint, nprocs, slices);
    raw_tmp_ = read_if_present(tmp_path(paths_.raw));
    summary_tmp_ = read_if_present(tmp_path(paths_.summary));
    phases_tmp_ = read_if_present(tmp_path(paths_.phases));
    const bool pending = raw_tmp_ || summary_tmp_ || (phases_ && phases_tmp_);
    // finalize() renames raw, then summary: a run killed between the two leaves one .tmp file
    // beside the other kind's just-renamed final file, and the two together hold its points.
    if (raw_tmp_ && summary_tmp_)
      recover(tmp_path(paths_.raw), *raw_tmp_, tmp_path(paths_.summary), *summary_tmp_);
    else if (summary_tmp_ && final_present(paths_.raw))
      recover(paths_.raw, read_final(paths_.raw), tmp_path(paths_.summary), *summary_tmp_);
    else if (raw_tmp_ && final_present(paths_.summary))
      recover(tmp_path(paths_.raw), *raw_tmp_, paths_.summary, read_final(paths_.summary));
    std::set<int> from_tmp;
    for (const auto& [point, rows] : recovered_) from_tmp.insert(point);
    if (final_present(paths_.raw) && final_present(paths_.summary))
      recover(paths_.raw, read_final(paths_.raw), paths_.summary, read_final(paths_.summary));
    if (!previous_meta_.is_null()) verify_final_files(from_tmp);
    if (phases_) recover_phases();
    if (!previous_meta_.is_null() && !pending && final_present(paths_.meta) && previous_meta_.value("complete", false) &&
        damage_.empty()) {
      finished_before_ = true;
      recovered_.clear();
      return;
    }
    for (const auto& [point, rec] : recovered_) {
      complete_.insert(point);
      const auto fields = split_row(rec.summary);
      const auto& cols = summary_columns();
      recovered_counts_.first += count_field(fields[column(cols, "n")]).value_or(0);
      recovered_counts_.second += count_field(fields[column(cols, "n_invalid")]).value_or(0);
    }
  } catch (const nlohmann::json::exception& e) {
    // A key of the expected name but of another type (hand-edited or not collbench's).
    throw ConfigError("config error: --out " + dir.string() + ": " + paths_.meta.filename().string() +
                      " is damaged (" + excerpt(e.what()) + "): remove this launch's files or use another --out");
  }
}

// The final files against the previous metadata's "integrity" (and, for a complete launch,
// its slice's points): damaged points are dropped from what is kept, and named on stderr.
void ResultFiles::verify_final_files(const std::set<int>& from_tmp) {
  std::vector<std::string> problems;
  std::set<int> damaged;
  const nlohmann::json integrity = previous_meta_.value("integrity", nlohmann::json::object());
  if (integrity.contains("files"))
    for (const fs::path& p : data_paths()) {
      if (p == paths_.phases && !integrity["files"].contains(p.filename().string())) continue;
      const nlohmann::json want = integrity["files"].value(p.filename().string(), nlohmann::json::object());
      if (!final_present(p)) {
        if (!from_tmp.empty()) continue;  // a killed run's .tmp files hold the points
        problems.push_back(p.filename().string() + " is missing");
        continue;
      }
      const std::string text = read_final(p);  // the record is of the plain bytes, in either form
      const std::size_t rows = data_rows(text);
      if (rows != want.value("rows", rows))
        problems.push_back(p.filename().string() + " has " + std::to_string(rows) + " data rows, the metadata says " +
                           std::to_string(want.value("rows", 0)));
      else if (sha256(text) != want.value("sha256", ""))
        problems.push_back(p.filename().string() + "'s SHA-256 differs from the metadata's");
    }
  if (integrity.contains("points"))
    for (const auto& [id, hash] : integrity["points"].items()) {
      const auto point = count_field(id);
      if (!point || from_tmp.count(static_cast<int>(*point))) continue;
      const auto it = recovered_.find(static_cast<int>(*point));
      if (it != recovered_.end() && point_hash(it->second.summary, it->second.raw) == hash) continue;
      damaged.insert(static_cast<int>(*point));
      if (it != recovered_.end()) recovered_.erase(it);
    }
  const std::string phases_name = paths_.phases.filename().string();
  if (std::any_of(problems.begin(), problems.end(), [&](const std::string& p) { return p.rfind(phases_name, 0) == 0; })) {
    for (const auto& [point, rows] : recovered_) damaged.insert(point);  // no phase row can be trusted
    recovered_.clear();
  }
  if (previous_meta_.value("complete", false) && previous_meta_.contains("points")) {
    const auto& pts = previous_meta_["points"];
    for (int p = pts.value("slice_begin", 0); p < pts.value("slice_end", 0); ++p)
      if (!recovered_.count(p)) damaged.insert(p);
  }
  if (problems.empty() && damaged.empty()) return;
  std::string msg;
  for (const auto& p : problems) msg += (msg.empty() ? "" : "; ") + p;
  if (!damaged.empty())
    msg += (msg.empty() ? "" : ": ") + std::string("point(s) ") + join_points(damaged) +
           " damaged or missing, measured again";
  else msg += ": every point is intact, the files are rewritten";
  damage_ = paths_.raw.parent_path().string() + ": " + msg;
  std::cerr << "collbench: warning: " << damage_ << std::endl;
}

std::vector<fs::path> ResultFiles::data_paths() const {
  if (phases_) return {paths_.raw, paths_.summary, paths_.phases};
  return {paths_.raw, paths_.summary};
}

// The phases lines of the recovered points, from the .tmp phases file (a killed run) or else the
// final one; a point without any is dropped (measured again, so that no phase rows are missing).
void ResultFiles::recover_phases() {
  std::optional<std::string> text = phases_tmp_;
  if (!text && final_present(paths_.phases)) text = read_final(paths_.phases);
  std::map<std::string, std::vector<std::string>> by_point;
  if (text) {
    const auto lines = complete_lines(*text);
    if (!lines.empty() && split_row(lines[0]) != phases_columns())
      throw ConfigError("config error: " + paths_.phases.string() +
                        " does not have the contract's columns (results/CONTRACT.md): remove it or use another --out");
    const std::size_t point_col = column(phases_columns(), "point");
    for (std::size_t i = 1; i < lines.size(); ++i) {
      const auto f = split_row(lines[i]);
      if (f.size() == phases_columns().size()) by_point[f[point_col]].push_back(lines[i]);
    }
  }
  for (auto it = recovered_.begin(); it != recovered_.end();) {
    auto found = by_point.find(std::to_string(it->first));
    if (found == by_point.end()) {
      it = recovered_.erase(it);
      continue;
    }
    it->second.phases = std::move(found->second);
    ++it;
  }
}

ResultFiles::~ResultFiles() = default;

void ResultFiles::check_previous_meta(const std::string& fingerprint, int nprocs, std::optional<int> slices) {
  std::string problem;
  auto meta = read_json(tmp_path(paths_.meta), problem);
  if (!meta) meta = read_json(paths_.meta, problem, true);
  const bool data = final_present(paths_.raw) || final_present(paths_.summary) || present(tmp_path(paths_.raw)) ||
                    present(tmp_path(paths_.summary));
  if (!meta) {
    if (data)
      throw ConfigError("config error: --out " + paths_.raw.parent_path().string() + " holds " +
                        paths_.raw.filename().string() + " without readable metadata (" +
                        (problem.empty() ? paths_.meta.filename().string() + " is missing" : problem) +
                        "): remove these files or use another --out");
    return;
  }
  previous_meta_ = *meta;
  // The keys a resume reads whole, by type (the others are read with a type check of their own).
  for (const auto& [key, ok] : {std::pair{"runs", previous_meta_.value("runs", nlohmann::json::array()).is_array()},
                                std::pair{"integrity", previous_meta_.value("integrity", nlohmann::json::object()).is_object()},
                                std::pair{"points", previous_meta_.value("points", nlohmann::json::object()).is_object()}})
    if (!ok)
      throw ConfigError("config error: --out " + paths_.raw.parent_path().string() + ": " + paths_.meta.filename().string() +
                        " is damaged (\"" + key + "\" has the wrong type): remove this launch's files or use another --out");
  const int version = previous_meta_.value("contract_version", 1);
  if (version != contract_version())
    throw ConfigError("config error: --out " + paths_.raw.parent_path().string() + " holds " +
                      paths_.meta.filename().string() + " of results contract version " + std::to_string(version) +
                      ", this collbench writes version " + std::to_string(contract_version()) +
                      ": run `analysis/analyze migrate " + paths_.raw.parent_path().string() +
                      "` first, or use another --out");
  const std::string before = previous_meta_.value("config_fingerprint", "");
  if (before != fingerprint)
    throw ConfigError("config error: --out " + paths_.raw.parent_path().string() + " already holds " +
                      paths_.meta.filename().string() + " of a different configuration (fingerprint " + excerpt(before) +
                      ", now " + fingerprint + "): use another --out or another --launch, or remove those files");
  if (previous_meta_.value("nprocs", nprocs) != nprocs)
    throw ConfigError("config error: --out " + paths_.raw.parent_path().string() + " holds launch results at " +
                      std::to_string(previous_meta_.value("nprocs", 0)) + " processes, this run has " +
                      std::to_string(nprocs) + " (use the same -n, or another --out)");
  if (slices && previous_meta_.contains("slices") && previous_meta_["slices"].is_number_integer() &&
      previous_meta_["slices"].get<int>() != *slices)
    throw ConfigError("config error: --out " + paths_.raw.parent_path().string() + " holds " +
                      paths_.meta.filename().string() + " of --slice S/" +
                      std::to_string(previous_meta_["slices"].get<int>()) + ", this run uses --slice S/" +
                      std::to_string(*slices) + " (use the same T, or another --out)");
}

// The complete points of a launch's raw and summary texts, added to recovered_ unless already there.
void ResultFiles::recover(const fs::path& raw, const std::string& raw_text, const fs::path& summary,
                          const std::string& summary_text) {
  const auto raw_lines = complete_lines(raw_text), summary_lines = complete_lines(summary_text);
  if (raw_lines.empty() || summary_lines.empty()) return;
  if (split_row(raw_lines[0]) != raw_columns() || split_row(summary_lines[0]) != summary_columns())
    throw ConfigError("config error: " + raw.string() + " or " + summary.string() +
                      " does not have the contract's columns (results/CONTRACT.md): remove them or use another --out");
  for (auto& [point, rows] : points_of(raw_lines, summary_lines)) recovered_.try_emplace(point, std::move(rows));
}

std::optional<std::string> ResultFiles::read_if_present(const fs::path& p) {
  if (!present(p)) return std::nullopt;
  return read_all(p);
}

namespace {

// A .tmp data file holding exactly `text`, open to append. An earlier file that begins with
// `text` (a killed run's points, perhaps a partial point after them) is cut to it; another
// earlier file is replaced whole, written aside first (its points are never lost to a failed
// write); a new file is written in place.
OutFile open_tmp(const fs::path& path, const std::string& text, const std::optional<std::string>& before) {
  if (before && before->compare(0, text.size(), text) == 0 && before->size() >= text.size()) {
    OutFile f = OutFile::truncate_to(path, text.size());
    f.sync();
    return f;
  }
  if (before) {
    replace_file(path, text);
    return OutFile::truncate_to(path, text.size());
  }
  OutFile f = OutFile::create(path);
  try {
    f.write(text);
    f.sync();
  } catch (...) {
    f = OutFile();
    remove_quietly(path);
    throw;
  }
  return f;
}

}  // namespace

void ResultFiles::start() {
  std::string raw = csv_line(raw_columns()), summary = csv_line(summary_columns());
  for (const auto& [point, rec] : recovered_) {
    raw += joined(rec.raw);
    summary += rec.summary + "\n";
  }
  const bool new_raw = !raw_tmp_;
  raw_ = open_tmp(tmp_path(paths_.raw), raw, raw_tmp_);
  try {
    summary_ = open_tmp(tmp_path(paths_.summary), summary, summary_tmp_);
    if (phases_) {
      std::string phases = csv_line(phases_columns());
      for (const auto& [point, rec] : recovered_) phases += joined(rec.phases);
      phases_file_ = open_tmp(tmp_path(paths_.phases), phases, phases_tmp_);
    }
  } catch (...) {
    raw_ = OutFile();
    summary_ = OutFile();
    if (new_raw) remove_quietly(tmp_path(paths_.raw));
    throw;
  }
  sync_directory(paths_.raw.parent_path());
  raw_tmp_.reset();
  summary_tmp_.reset();
  phases_tmp_.reset();
  recovered_.clear();
}

void ResultFiles::append(const std::vector<std::string>& raw_lines, const std::string& summary_line,
                         const std::vector<std::string>& phases_lines) {
  std::string raw;
  for (const auto& line : raw_lines) raw += line;
  raw_.write(raw);
  raw_.sync();
  if (phases_file_.is_open()) {  // before the summary line, which marks the point complete
    std::string phases;
    for (const auto& line : phases_lines) phases += line;
    phases_file_.write(phases);
    phases_file_.sync();
  }
  summary_.write(summary_line);
  summary_.sync();
}

nlohmann::json ResultFiles::integrity() const {
  nlohmann::json files = nlohmann::json::object(), points = nlohmann::json::object();
  const std::string raw = read_all(tmp_path(paths_.raw)), summary = read_all(tmp_path(paths_.summary));
  for (const auto& [p, text] : {std::pair{paths_.raw, &raw}, std::pair{paths_.summary, &summary}})
    files[p.filename().string()] = {{"rows", data_rows(*text)}, {"sha256", sha256(*text)}};
  for (const auto& [point, rows] : points_of(complete_lines(raw), complete_lines(summary)))
    points[std::to_string(point)] = point_hash(rows.summary, rows.raw);
  if (phases_) {
    const std::string phases = read_all(tmp_path(paths_.phases));
    files[paths_.phases.filename().string()] = {{"rows", data_rows(phases)}, {"sha256", sha256(phases)}};
  }
  return {{"files", files}, {"points", points}};
}

void ResultFiles::write_meta(const nlohmann::json& meta) {
  meta_ = meta;
  replace_file(tmp_path(paths_.meta), meta.dump(2) + "\n");  // via meta-L<L>.json.tmp.part
}

void ResultFiles::finalize() {
  if (raw_.is_open()) std::exchange(raw_, OutFile()).close();
  if (summary_.is_open()) std::exchange(summary_, OutFile()).close();
  if (phases_file_.is_open()) std::exchange(phases_file_, OutFile()).close();
  if (meta_.is_object()) {
    meta_["integrity"] = integrity();
    write_meta(nlohmann::json(meta_));
  }
  // A compressed final file of this launch (a resumed compacted launch) goes before its plain
  // replacement arrives, so that the directory never holds both forms: its points are in the
  // .tmp files, which a run killed in between resumes from.
  const auto drop_compressed = [](const fs::path& p) {
    if (!present(gz_path(p))) return;
    std::error_code ec;
    fs::remove(gz_path(p), ec);
    if (ec) throw io_error("remove", gz_path(p).string(), ec.value(), "remove it by hand and re-run: finished points are kept");
  };
  for (const fs::path& p : data_paths()) drop_compressed(p);
  rename_file(tmp_path(paths_.raw), paths_.raw);
  rename_file(tmp_path(paths_.summary), paths_.summary);
  if (phases_ && present(tmp_path(paths_.phases))) rename_file(tmp_path(paths_.phases), paths_.phases);
  drop_compressed(paths_.meta);  // the .tmp metadata, read first by a resume, holds it
  rename_file(tmp_path(paths_.meta), paths_.meta);
  sync_directory(paths_.raw.parent_path());
}

}  // namespace collbench
