#include "results.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "contract.hpp"
#include "csv.hpp"
#include "errors.hpp"

namespace collbench {

namespace fs = std::filesystem;

namespace {

std::string suffix(int launch, std::optional<int> slice) {
  return "L" + std::to_string(launch) + (slice ? "-S" + std::to_string(*slice) : "");
}

// The complete lines of a file (a last line without '\n' is a partial write: dropped).
std::vector<std::string> complete_lines(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) out.push_back(text.substr(at, nl - at));
  return out;
}

std::optional<nlohmann::json> read_json(const fs::path& p) {
  if (!fs::exists(p)) return std::nullopt;
  std::ifstream in(p);
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::size_t column(const std::vector<std::string>& cols, const char* name) {
  for (std::size_t i = 0; i < cols.size(); ++i)
    if (cols[i] == name) return i;
  return cols.size();
}

void write_all(std::FILE* f, const std::string& s, const fs::path& p) {
  if (std::fwrite(s.data(), 1, s.size(), f) != s.size()) throw std::runtime_error("cannot write " + p.string());
}

void sync_file(std::FILE* f, const fs::path& p) {
  if (std::fflush(f) != 0 || fsync(fileno(f)) != 0) throw std::runtime_error("cannot flush " + p.string());
}

std::FILE* open_new(const fs::path& p) {
  std::FILE* f = std::fopen(p.c_str(), "wb");
  if (!f) throw ConfigError("cannot create " + p.string() + " (check --out)");
  return f;
}

}  // namespace

ResultPaths ResultPaths::of(const fs::path& dir, int launch, std::optional<int> slice) {
  const std::string s = suffix(launch, slice);
  return {dir / ("raw-" + s + ".csv"), dir / ("summary-" + s + ".csv"), dir / ("meta-" + s + ".json")};
}

fs::path tmp_path(const fs::path& p) { return fs::path(p.string() + ".tmp"); }

ResultFiles::ResultFiles(const fs::path& dir, int launch, std::optional<int> slice, const std::string& fingerprint,
                         int nprocs, std::optional<int> slices)
    : paths_(ResultPaths::of(dir, launch, slice)) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw ConfigError("cannot create the output directory " + dir.string() + ": " + ec.message());
  check_previous_meta(fingerprint, nprocs, slices);
  const bool pending = fs::exists(tmp_path(paths_.raw)) || fs::exists(tmp_path(paths_.summary));
  if (!previous_meta_.is_null() && !pending && fs::exists(paths_.meta) && previous_meta_.value("complete", false)) {
    finished_before_ = true;
    return;
  }
  recover_from(tmp_path(paths_.raw), tmp_path(paths_.summary));
  recover_from(paths_.raw, paths_.summary);
  for (const auto& [point, rec] : recovered_) {
    complete_.insert(point);
    const auto fields = csv_split(rec.summary);
    const auto& cols = summary_columns();
    recovered_counts_.first += std::stoul(fields[column(cols, "n")]);
    recovered_counts_.second += std::stoul(fields[column(cols, "n_invalid")]);
  }
}

ResultFiles::~ResultFiles() {
  if (raw_) std::fclose(raw_);
  if (summary_) std::fclose(summary_);
}

void ResultFiles::check_previous_meta(const std::string& fingerprint, int nprocs, std::optional<int> slices) {
  auto meta = read_json(tmp_path(paths_.meta));
  if (!meta) meta = read_json(paths_.meta);
  const bool data = fs::exists(paths_.raw) || fs::exists(paths_.summary) || fs::exists(tmp_path(paths_.raw)) ||
                    fs::exists(tmp_path(paths_.summary));
  if (!meta) {
    if (data)
      throw ConfigError("config error: --out " + paths_.raw.parent_path().string() + " holds " +
                        paths_.raw.filename().string() + " without readable metadata (" +
                        paths_.meta.filename().string() + "): remove these files or use another --out");
    return;
  }
  previous_meta_ = *meta;
  const std::string before = previous_meta_.value("config_fingerprint", "");
  if (before != fingerprint)
    throw ConfigError("config error: --out " + paths_.raw.parent_path().string() + " already holds " +
                      paths_.meta.filename().string() + " of a different configuration (fingerprint " + before +
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

void ResultFiles::recover_from(const fs::path& raw, const fs::path& summary) {
  if (!fs::exists(raw) || !fs::exists(summary)) return;
  const auto raw_lines = complete_lines(raw), summary_lines = complete_lines(summary);
  const auto& rc = raw_columns();
  const auto& sc = summary_columns();
  if (raw_lines.empty() || summary_lines.empty()) return;
  if (csv_split(raw_lines[0]) != rc || csv_split(summary_lines[0]) != sc)
    throw ConfigError("config error: " + raw.string() + " or " + summary.string() +
                      " does not have the contract's columns (results/CONTRACT.md): remove them or use another --out");
  const std::size_t point_col = column(rc, "point"), n_col = column(sc, "n");
  std::map<int, std::vector<std::string>> raw_by_point;
  for (std::size_t i = 1; i < raw_lines.size(); ++i) {
    const auto f = csv_split(raw_lines[i]);
    if (f.size() != rc.size()) continue;
    raw_by_point[std::stoi(f[point_col])].push_back(raw_lines[i]);
  }
  for (std::size_t i = 1; i < summary_lines.size(); ++i) {
    const auto f = csv_split(summary_lines[i]);
    if (f.size() != sc.size()) continue;
    const int point = std::stoi(f[point_col]);
    const auto n = std::stoul(f[n_col]);
    if (recovered_.count(point)) continue;
    auto it = raw_by_point.find(point);
    if (it == raw_by_point.end() || it->second.size() != n) continue;
    recovered_[point] = {summary_lines[i], it->second};
  }
}

void ResultFiles::start() {
  raw_ = open_new(tmp_path(paths_.raw));
  summary_ = open_new(tmp_path(paths_.summary));
  write_all(raw_, csv_line(raw_columns()), paths_.raw);
  write_all(summary_, csv_line(summary_columns()), paths_.summary);
  for (const auto& [point, rec] : recovered_) {
    for (const auto& line : rec.raw) write_all(raw_, line + "\n", paths_.raw);
    write_all(summary_, rec.summary + "\n", paths_.summary);
  }
  sync_file(raw_, paths_.raw);
  sync_file(summary_, paths_.summary);
  recovered_.clear();
}

void ResultFiles::append(const std::vector<std::string>& raw_lines, const std::string& summary_line) {
  for (const auto& line : raw_lines) write_all(raw_, line, paths_.raw);
  sync_file(raw_, paths_.raw);
  write_all(summary_, summary_line, paths_.summary);
  sync_file(summary_, paths_.summary);
}

void ResultFiles::write_meta(const nlohmann::json& meta) {
  const fs::path part = fs::path(paths_.meta.string() + ".tmp.part");
  {
    std::ofstream out(part, std::ios::trunc);
    out << meta.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + part.string());
  }
  fs::rename(part, tmp_path(paths_.meta));
}

void ResultFiles::finalize() {
  if (raw_) std::fclose(std::exchange(raw_, nullptr));
  if (summary_) std::fclose(std::exchange(summary_, nullptr));
  fs::rename(tmp_path(paths_.raw), paths_.raw);
  fs::rename(tmp_path(paths_.summary), paths_.summary);
  fs::rename(tmp_path(paths_.meta), paths_.meta);
}

}  // namespace collbench
