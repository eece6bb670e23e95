// A deterministic fuzz driver for collbench's parsers (no MPI is initialized): the neighbourhood
// syntax (collrepro::iso::Neighborhood::parse), the size syntax (parse_size_spec) and the YAML
// configuration (parse_config, then make_plan at a few process counts, with --get's
// config_value). Built with -fsanitize=address,undefined (tests/fuzz/CMakeLists.txt).
//
//   parser_fuzz CORPUS_DIR [--seconds S] [--seed N] [--timeout-s T]
//
// CORPUS_DIR holds neighborhood/, size/ and yaml/ with one input per file (every case of
// issue #17's table among them). Each corpus input runs once as it is, then mutated inputs
// (byte flips, inserts, deletions, splices and tokens of the syntaxes, from a fixed-seed
// generator) run until S seconds have passed. An input fails the run when it
//   - throws anything but the parser's own error type (ConfigError, invalid_argument),
//   - crashes or trips a sanitizer (ASan/UBSan abort, the input is printed first),
//   - runs longer than T seconds (SIGALRM: a hang),
//   - allocates more than the ASan caps below (an over-budget allocation aborts).
// It prints the number of inputs executed.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "collrepro/neighborhood.hpp"
#include "config.hpp"
#include "errors.hpp"
#include "plan.hpp"
#include "units.hpp"

#include <sanitizer/common_interface_defs.h>

// Any single allocation above 1 GiB, or a resident size above 3 GiB, aborts the run.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=0:max_allocation_size_mb=1024:hard_rss_limit_mb=3072:detect_leaks=0";
}

namespace {

using namespace collbench;
namespace fs = std::filesystem;

enum class Kind { Neighborhood, Size, Yaml };
const char* const kKindDirs[] = {"neighborhood", "size", "yaml"};

struct Input {
  Kind kind;
  std::string text;
};

// The input being run, for the crash and hang reports.
const Input* g_current = nullptr;

void report(const char* what) {
  if (!g_current) return;
  std::fprintf(stderr, "parser_fuzz: %s on this %s input (%zu bytes):\n", what, kKindDirs[static_cast<int>(g_current->kind)],
               g_current->text.size());
  std::fwrite(g_current->text.data(), 1, g_current->text.size(), stderr);
  std::fputs("\n--- end of input\n", stderr);
}

void on_alarm(int) {
  report("time limit exceeded (a hang)");
  _exit(1);
}

void on_death() { report("crash or sanitizer error"); }

// splitmix64: a small, fixed-seed generator (the same inputs on every run).
struct Random {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(next() % n) : 0; }
};

const char* const kTokens[] = {
    "..", " x", " +", "x2", "+1", "KiB", "MiB", "GiB", "TiB", "kB", "B", "0", "1", "-1", "65536", "2147483647",
    "-2147483648", "1073741824", "99999999999999999999", "1e9", ".5", "(", ")", ",", ":", "d=", "r=", "+", "moore:",
    "vonneumann:", "octant:", "shells:", "list:", "(0,0)", "(1,-1)", "[", "]", "{", "}", "- ", "\n", "\n  ", ": ",
    "&a ", "*a", "'", "\"", "#", "~", "null", "auto", "sizes: ", "dims: ", "neighborhoods: ", "settings: ",
    "collective: ", "neighbor-alltoall", "neighbor-allgather", "neighbor-alltoallw", "allgather", "allgatherv",
    "intra-bcast", "intra-gather", "groups: ", "ratios: ", "blocks: ", "4:1", "1:0", "25/7", "3/1", "roots: ",
    "distributions: ", "random:7", "distance", "arithmetic", "timing: ", "reps: ", "window: ", "1ms", "launches: ",
    "algorithms: ", "placements: ", "interleaved", "4x2x1", "99999x1", "6x1", "x", "?", "!!str ", "<<: *a"};

std::string mutate(std::string s, const std::vector<Input>& corpus, Kind kind, Random& rng) {
  const std::size_t edits = 1 + rng.below(4);
  for (std::size_t e = 0; e < edits; ++e) {
    const std::size_t at = rng.below(s.size() + 1);
    switch (rng.below(6)) {
      case 0:
        if (!s.empty()) s[rng.below(s.size())] ^= static_cast<char>(1u << rng.below(8));
        break;
      case 1: s.insert(at, 1, static_cast<char>(rng.below(256))); break;
      case 2: s.erase(at, rng.below(8)); break;
      case 3: s.insert(at, kTokens[rng.below(std::size(kTokens))]); break;
      case 4:
        if (!s.empty()) {  // duplicate a piece
          const std::size_t from = rng.below(s.size());
          s.insert(at, s.substr(from, rng.below(16)));
        }
        break;
      default: {  // splice a piece of another input of the same kind
        const Input& other = corpus[rng.below(corpus.size())];
        if (other.kind == kind && !other.text.empty()) {
          const std::size_t from = rng.below(other.text.size());
          s.insert(at, other.text.substr(from, rng.below(32)));
        }
      }
    }
  }
  return s.size() > 4096 ? s.substr(0, 4096) : s;
}

void run_neighborhood(const std::string& text) {
  try {
    const auto n = collrepro::iso::Neighborhood::parse(text);
    if (n.size() > collrepro::iso::kMaxNeighbors) throw std::logic_error("neighbourhood over its size budget");
    if (!(collrepro::iso::Neighborhood::parse(n.to_string()) == n)) throw std::logic_error("to_string does not round-trip");
  } catch (const collrepro::iso::NeighborhoodError&) {
  }
}

void run_size(const std::string& text) {
  try {
    if (parse_size_spec(text).size() > kMaxSizes) throw std::logic_error("size range over its cap");
  } catch (const std::invalid_argument&) {
  }
}

void run_yaml(const std::string& text) {
  Config c;
  try {
    c = parse_config(text, {}, "fuzz.yaml");
    for (const char* key : {"launches", "sizes", "timing.reps"}) config_value(c, key);
  } catch (const ConfigError&) {
    return;
  }
  for (int nprocs : {1, 4, 6}) {
    try {
      make_plan(c, nprocs);
    } catch (const ConfigError&) {
    }
  }
}

void run(const Input& in, unsigned timeout_s) {
  g_current = &in;
  alarm(timeout_s);
  try {
    switch (in.kind) {
      case Kind::Neighborhood: run_neighborhood(in.text); break;
      case Kind::Size: run_size(in.text); break;
      case Kind::Yaml: run_yaml(in.text); break;
    }
  } catch (const std::exception& e) {
    report((std::string("an unexpected exception (") + e.what() + ")").c_str());
    std::exit(1);
  }
  alarm(0);
  g_current = nullptr;
}

std::vector<Input> load_corpus(const fs::path& dir) {
  std::vector<Input> out;
  for (int k = 0; k < 3; ++k) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir / kKindDirs[k])) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      out.push_back({static_cast<Kind>(k), ss.str()});
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: parser_fuzz CORPUS_DIR [--seconds S] [--seed N] [--timeout-s T]\n";
    return 2;
  }
  double seconds = 90;
  std::uint64_t seed = 17;
  unsigned timeout_s = 2;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    if (opt == "--seconds") seconds = std::stod(argv[i + 1]);
    else if (opt == "--seed") seed = std::stoull(argv[i + 1]);
    else if (opt == "--timeout-s") timeout_s = static_cast<unsigned>(std::stoul(argv[i + 1]));
  }
  signal(SIGALRM, on_alarm);
  __sanitizer_set_death_callback(on_death);
  const std::vector<Input> corpus = load_corpus(argv[1]);
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::size_t executed = 0;
  for (const Input& in : corpus) run(in, timeout_s), ++executed;
  Random rng{seed};
  while (elapsed() < seconds) {
    const Input& base = corpus[rng.below(corpus.size())];
    const Input in{base.kind, mutate(base.text, corpus, base.kind, rng)};
    run(in, timeout_s);
    ++executed;
  }
  std::printf("parser_fuzz: %zu inputs executed (%zu corpus, seed %llu) in %.0f s, no failure\n", executed, corpus.size(),
              static_cast<unsigned long long>(seed), elapsed());
  return 0;
}
