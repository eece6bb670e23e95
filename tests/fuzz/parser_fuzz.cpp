// A deterministic fuzz driver for collbench's parsers (no MPI is initialized): the neighbourhood
// syntax (collrepro::iso::Neighborhood::parse), the size syntax (parse_size_spec), the YAML
// configuration (parse_config, then make_plan at a few process counts, with --get's
// config_value) and the PMPI library's rules (collrepro::pmpi::Rules::parse, then select on a
// few calls). Built with -fsanitize=address,undefined (tests/fuzz/CMakeLists.txt).
//
//   parser_fuzz CORPUS_DIR [--seconds S] [--seed N] [--timeout-s T]
//
// CORPUS_DIR holds neighborhood/, size/, yaml/ and rules/ with one input per file (every case of
// issue #17's table among them). Each corpus input runs once as it is, then the generated rules
// inputs too large to commit (rules_generated(): the caps of interpose/rules.hpp and one past
// each), then mutated inputs (byte flips, inserts, deletions, splices and tokens of the
// syntaxes, from a fixed-seed generator) run until S seconds have passed. An input fails the
// run when it
//   - throws anything but the parser's own error type (ConfigError, invalid_argument,
//     RulesError), or a RulesError whose message is not one line of at most 480 characters,
//   - crashes or trips a sanitizer (ASan/UBSan abort, the input is printed first),
//   - uses more than T seconds of CPU (SIGPROF: a hang; CPU time, so that other work on the
//     machine cannot make a slow input look like a hang),
//   - allocates more than the ASan caps below (an over-budget allocation aborts).
// It prints the number of inputs executed, in all and per kind, and the slowest input's time.
// A quarter of the mutated inputs start from a rules input, the rest from the other kinds' as
// before the rules joined.
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
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
#include "config/config.hpp"
#include "base/errors.hpp"
#include "families/plan.hpp"
#include "rules.hpp"
#include "config/units.hpp"

#include <sanitizer/common_interface_defs.h>

// Any single allocation above 1 GiB, or a resident size above 3 GiB, aborts the run.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=0:max_allocation_size_mb=1024:hard_rss_limit_mb=3072:detect_leaks=0";
}

namespace {

using namespace collbench;
namespace fs = std::filesystem;

enum class Kind { Neighborhood, Size, Yaml, Rules };
const char* const kKindDirs[] = {"neighborhood", "size", "yaml", "rules"};
constexpr int kKinds = 4;

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

void on_cpu_limit(int) {
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
    "algorithms: ", "placements: ", "interleaved", "4x2x1", "99999x1", "6x1", "x", "?", "!!str ", "<<: *a",
    // the rules' JSON
    "{}", "{\"any\": {}}", "\": {", "\": ", "}}", "[", "]", "\"any\"", "\"collective=", "collective=allgather",
    "collective=neighbor-alltoall", "\"groups=", "groups=5:3", "duplex=half", "duplex=full", "\"neighborhood=",
    "\"msg_size<=", "\"msg_size>", "4096", "\"algorithm=", "algorithm=native", "algorithm=torus",
    "algorithm=fullduplex-allgather", "algorithm=root-gathering", "\\u0000", "\\ud800", "\\\"", "\xff", "\xc3\xa9",
    "\xed\xa0\x80", "1e999", "-0", "true", "false", ","};

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

// A few calls, each shape the rules can name.
std::vector<collrepro::pmpi::Query> rules_queries() {
  using collrepro::Collective;
  std::vector<collrepro::pmpi::Query> out;
  for (Collective c : {Collective::Allgather, Collective::Allgatherv, Collective::NeighborAlltoall})
    for (std::size_t size : {std::size_t{0}, std::size_t{4096}, std::size_t{1} << 40}) {
      collrepro::pmpi::Query q;
      q.collective = c;
      q.msg_size = size;
      if (c == Collective::NeighborAlltoall) {
        q.offsets = collrepro::pmpi::sorted_offsets({{-1, 0}, {1, 0}, {0, -1}, {0, 1}});
      } else {
        q.larger = 5;
        q.smaller = 3;
        q.half_duplex = size == 0;
      }
      out.push_back(q);
    }
  return out;
}

void run_rules(const std::string& text) {
  static const std::vector<collrepro::pmpi::Query> queries = rules_queries();
  try {
    const auto rules = collrepro::pmpi::Rules::parse(text);
    for (const auto& q : queries) rules.select(q);
  } catch (const collrepro::pmpi::RulesError& e) {
    const std::string line = e.what();
    if (line.empty() || line.size() > 480 || line.find('\n') != std::string::npos)
      throw std::logic_error("a rules error that is not one short line (" + std::to_string(line.size()) +
                             " characters)");
  }
}

// The slowest input so far (CPU seconds, kind).
double g_slowest = 0;
Kind g_slowest_kind = Kind::Neighborhood;

// This process's CPU time (user + system), which other processes' load does not stretch.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// SIGPROF after `seconds` of this process's CPU time; 0 disarms.
void arm_cpu_limit(unsigned seconds) {
  itimerval limit{};
  limit.it_value.tv_sec = static_cast<time_t>(seconds);
  setitimer(ITIMER_PROF, &limit, nullptr);
}

void run(const Input& in, unsigned timeout_s) {
  const double start = cpu_seconds();
  g_current = &in;
  arm_cpu_limit(timeout_s);
  try {
    switch (in.kind) {
      case Kind::Neighborhood: run_neighborhood(in.text); break;
      case Kind::Size: run_size(in.text); break;
      case Kind::Yaml: run_yaml(in.text); break;
      case Kind::Rules: run_rules(in.text); break;
    }
  } catch (const std::exception& e) {
    report((std::string("an unexpected exception (") + e.what() + ")").c_str());
    std::exit(1);
  }
  arm_cpu_limit(0);
  g_current = nullptr;
  const double took = cpu_seconds() - start;
  if (took > g_slowest) g_slowest = took, g_slowest_kind = in.kind;
}

std::vector<Input> load_corpus(const fs::path& dir) {
  std::vector<Input> out;
  for (int k = 0; k < kKinds; ++k) {
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

// Rules inputs too large to commit, at and one past each cap of interpose/rules.hpp.
std::vector<Input> rules_generated() {
  using namespace collrepro::pmpi;
  std::vector<Input> out;
  const auto add = [&](std::string text) { out.push_back({Kind::Rules, std::move(text)}); };
  const auto keys = [](std::size_t n) {  // n keys in all
    std::string text = "{\"collective=allgather\": {";
    for (std::size_t i = 1; i + 2 < n; ++i) text += "\"msg_size<=" + std::to_string(i) + "\": {},";
    return text + "\"any\": {\"algorithm=native\": {}}}}";
  };
  add(keys(kMaxRulesKeys));
  add(keys(kMaxRulesKeys + 1));
  std::string big = R"({"any": {"algorithm=native": {}}})";
  big.resize(kMaxRulesBytes, ' ');
  add(big);
  big.push_back(' ');
  add(big);
  add("{\"any\": {\"" + std::string(kMaxRulesKeyBytes + 1, 'k') + "\": {}}}");
  add("{\"" + std::string(kMaxRulesBytes - 8, 'k') + "\": {}}");  // one key of almost 4 MiB
  add(std::string(kMaxRulesBytes, '{'));                          // nesting
  add(std::string(kMaxRulesBytes, '['));
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"any\": ";
  add(deep);
  std::string dup = "{";
  for (int i = 0; i < 50000; ++i) dup += "\"any\": {},";
  add(dup + "\"any\": {}}");
  std::string boxes = "{\"collective=neighbor-alltoall\": {";  // the largest generated neighbourhoods
  for (int i = 1; i <= 64; ++i) boxes += "\"neighborhood=shells:d=2,r=" + std::to_string(i) + "+511\": {},";
  add(boxes + "\"any\": {}}}");
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
  signal(SIGPROF, on_cpu_limit);
  __sanitizer_set_death_callback(on_death);
  const std::vector<Input> corpus = load_corpus(argv[1]);
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::size_t executed = 0, per_kind[kKinds] = {}, corpus_per_kind[kKinds] = {};
  const auto count = [&](const Input& in) { ++executed, ++per_kind[static_cast<int>(in.kind)]; };
  for (const Input& in : corpus) run(in, timeout_s), count(in), ++corpus_per_kind[static_cast<int>(in.kind)];
  const std::vector<Input> generated = rules_generated();
  for (const Input& in : generated) run(in, timeout_s), count(in);
  std::vector<const Input*> rules, others;
  for (const Input& in : corpus) (in.kind == Kind::Rules ? rules : others).push_back(&in);
  Random rng{seed};
  while (elapsed() < seconds) {
    const bool pick_rules = !rules.empty() && (others.empty() || rng.below(4) == 0);
    const std::vector<const Input*>& from = pick_rules ? rules : others;
    const Input& base = *from[rng.below(from.size())];
    const Input in{base.kind, mutate(base.text, corpus, base.kind, rng)};
    run(in, timeout_s);
    count(in);
  }
  std::printf("parser_fuzz: %zu inputs executed (%zu corpus, %zu generated, seed %llu) in %.0f s, no failure\n",
              executed, corpus.size(), generated.size(), static_cast<unsigned long long>(seed), elapsed());
  std::printf("parser_fuzz: the slowest input took %.3f s of CPU (%s; the limit is %u s)\n", g_slowest,
              kKindDirs[static_cast<int>(g_slowest_kind)], timeout_s);
  for (int k = 0; k < kKinds; ++k) {
    const std::string extra = k == static_cast<int>(Kind::Rules) ? ", " + std::to_string(generated.size()) + " generated" : "";
    std::printf("parser_fuzz: %s: %zu inputs (%zu corpus%s)\n", kKindDirs[k], per_kind[k], corpus_per_kind[k],
                extra.c_str());
  }
  return 0;
}
