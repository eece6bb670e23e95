#include "run/cli.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

#include "base/errors.hpp"

namespace collbench {

namespace {

std::pair<int, int> parse_slice(const std::string& s) {
  const auto slash = s.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument("");
    std::size_t u1 = 0, u2 = 0;
    const int a = std::stoi(s.substr(0, slash), &u1), b = std::stoi(s.substr(slash + 1), &u2);
    if (u1 != slash || u2 != s.size() - slash - 1 || a < 0 || b < 1 || a >= b) throw std::invalid_argument("");
    return {a, b};
  } catch (const std::exception&) {
    throw ConfigError("usage error: --slice " + s + ": want S/T with 0 <= S < T (e.g. --slice 0/4)");
  }
}

constexpr int kMaxLaunch = 99999;     // launches <= 100000 (config.cpp)
constexpr int kMaxNprocs = 1 << 20;   // a dry-run plan of at most this many processes

int bounded_number(const std::string& option, const std::string& text, int lo, int hi, const char* what) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(text) < lo || std::stoi(text) > hi)
    throw ConfigError("usage error: " + option + " " + text + ": want " + what + " " + std::to_string(lo) + ".." +
                      std::to_string(hi));
  return std::stoi(text);
}

std::string join_args(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.find_first_of(" \t'\"") != std::string::npos) a = "'" + a + "'";
    s += (i ? " " : "") + a;
  }
  return s;
}

}  // namespace

std::optional<Options> parse_cli(int argc, char** argv, bool print) {
  Options o;
  o.command_line = join_args(argc, argv);
  CLI::App app{"collbench: the collrepro sweep driver (one MPI program; see bench/README.md)", "collbench"};
  std::string slice;
  app.add_option("config", o.config_path, "experiment configuration (YAML)");
  auto* out = app.add_option("--out", o.out, "result directory (default results/<experiment>/<mpi_impl>-<mpi_version>)");
  std::string launch;
  app.add_option("--launch", launch, "launch number L (0-based; files *-L<L>*)");
  app.add_option("--slice", slice, "run chunk S of T contiguous chunks of the point list (S/T, 0-based)");
  app.add_option("--set", o.sets, "override a config field: key=value (dotted key, YAML value); repeatable");
  app.add_flag("--dry-run", o.dry_run, "print the plan (points, skipped shapes and why) and exit");
  app.add_option("--format", o.format, "output format of --dry-run (text|csv) and --list-algorithms (text|csv|json)")
      ->check(CLI::IsMember({"text", "csv", "json"}));
  std::string nprocs;
  app.add_option("--nprocs", nprocs, "dry-run: plan for N processes instead of the launched count");
  app.add_flag("--quiet", o.quiet, "no progress lines on stderr");
  app.add_flag("--list-algorithms", o.list_algorithms, "list the registered algorithms and exit (no MPI)");
  std::string clock_check;
  app.add_option("--clock-check", clock_check,
                 "synchronize the clocks as configured, print their cost and residual now and SECONDS later (JSON), exit");
  app.add_option("--get", o.get, "print the effective value of a config key (e.g. launches) and exit (no MPI)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    if (print) std::cout << app.help();
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw ConfigError(std::string("usage error: ") + e.what() + " (see collbench --help)");
  }
  if (!slice.empty()) o.slice = parse_slice(slice);
  if (!launch.empty()) o.launch = bounded_number("--launch", launch, 0, kMaxLaunch, "a launch number");
  if (!clock_check.empty()) o.clock_check = bounded_number("--clock-check", clock_check, 0, 600, "seconds");
  if (!nprocs.empty()) o.nprocs = bounded_number("--nprocs", nprocs, 1, kMaxNprocs, "a process count");
  if (out->count() > 0 && o.out.empty())
    throw ConfigError("usage error: --out '' is empty (give a directory, or leave --out out for the default)");
  if (!o.config_path.empty() && std::filesystem::is_directory(o.config_path))
    throw ConfigError("usage error: " + o.config_path + " is a directory (give the experiment's YAML file)");
  if (o.config_path.empty() && !o.list_algorithms)
    throw ConfigError("usage error: a configuration file is required: collbench CONFIG.yaml [options] (see --help)");
  if (o.clock_check >= 0 && o.dry_run) throw ConfigError("usage error: --clock-check and --dry-run exclude each other");
  if (o.nprocs && !o.dry_run) throw ConfigError("usage error: --nprocs plans a dry run only (add --dry-run)");
  if (o.format != "text" && !o.dry_run && !o.list_algorithms)
    throw ConfigError("usage error: --format applies to --dry-run and --list-algorithms only");
  if (o.format == "json" && !o.list_algorithms)
    throw ConfigError("usage error: --format json applies to --list-algorithms only (--dry-run: text or csv)");
  return o;
}

}  // namespace collbench
