#include "served.hpp"

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace collrepro::pmpi {
namespace {

// Slot of (collective, algorithm): the registry's entries first, then one native slot per
// collective; one row of slots per call form, then one of persistent starts. The registry is
// the same in every process, so the slots are too.
constexpr std::size_t kForms = contract::all<CallForm>().size();
constexpr std::size_t kStartsRow = kForms;

struct Counters {
  Counters() {
    for (std::size_t i = 0; i < algorithms.size(); ++i) slot_of[algorithms[i]] = i;
  }
  std::mutex m;
  std::vector<const Algorithm*> algorithms = Registry::global().all();
  std::unordered_map<const Algorithm*, std::size_t> slot_of;
  std::size_t row = algorithms.size() + all_collectives().size();
  std::vector<std::uint64_t> calls = std::vector<std::uint64_t>(row * (kForms + 1), 0);
  struct Delayed {
    std::uint64_t calls = 0;
    double call_s = 0, waited_s = 0;
  };
  std::map<std::pair<DelayCall, std::size_t>, Delayed> delayed;  // this process's delayed calls
};

Counters& counters() {
  static Counters c;
  return c;
}

std::size_t slot(const Counters& c, Collective collective, const Algorithm* a) {
  if (a)
    if (const auto it = c.slot_of.find(a); it != c.slot_of.end()) return it->second;
  return c.algorithms.size() + static_cast<std::size_t>(collective);
}

}  // namespace

void count_served(Collective c, const Algorithm* algorithm, CallForm form) {
  Counters& k = counters();
  std::lock_guard<std::mutex> lock(k.m);
  ++k.calls[static_cast<std::size_t>(form) * k.row + slot(k, c, algorithm)];
}

void count_started(Collective c, const Algorithm* algorithm) {
  Counters& k = counters();
  std::lock_guard<std::mutex> lock(k.m);
  ++k.calls[kStartsRow * k.row + slot(k, c, algorithm)];
}

void count_delayed(DelayCall c, std::size_t bytes, double call_s, double waited_s) {
  Counters& k = counters();
  std::lock_guard<std::mutex> lock(k.m);
  auto& d = k.delayed[{c, bytes}];
  ++d.calls;
  d.call_s += call_s;
  d.waited_s += waited_s;
}

void write_report(const std::string& where, const std::string& refused) {
  Counters& k = counters();
  std::vector<std::uint64_t> total(k.calls.size(), 0);
  PMPI_Reduce(k.calls.data(), total.data(), static_cast<int>(total.size()), MPI_UINT64_T, MPI_SUM, 0,
              MPI_COMM_WORLD);
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  std::FILE* out = where == "-" ? stderr : std::fopen(where.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "collrepro-pmpi: cannot write the report to '%s' (check COLLREPRO_PMPI_REPORT)\n",
                 where.c_str());
    return;
  }
  if (!refused.empty())
    std::fprintf(out, "collrepro-pmpi: report: the settings were refused (%s); every call went to the MPI library\n",
                 refused.c_str());
  const auto line = [&](const std::string& what, std::size_t i, std::uint64_t n) {
    if (n == 0) return;
    const bool native = i >= k.algorithms.size();
    const Collective c = native ? all_collectives()[i - k.algorithms.size()] : k.algorithms[i]->info().collective;
    std::fprintf(out, "collrepro-pmpi: %s %s %s %llu\n", what.c_str(), to_string(c),
                 native ? "native" : k.algorithms[i]->info().name.c_str(), static_cast<unsigned long long>(n));
  };
  for (std::size_t i = 0; i < k.row; ++i) {
    std::uint64_t all_forms = 0;
    for (std::size_t f = 0; f < kForms; ++f) all_forms += total[f * k.row + i];
    line("served", i, all_forms);
  }
  for (CallForm form : contract::all<CallForm>())
    for (std::size_t i = 0; form != CallForm::Blocking && i < k.row; ++i)
      line(std::string("served-call ") + to_string(form), i, total[static_cast<std::size_t>(form) * k.row + i]);
  for (std::size_t i = 0; i < k.row; ++i) line("started", i, total[kStartsRow * k.row + i]);
  for (const auto& [key, d] : k.delayed)
    std::fprintf(out, "collrepro-pmpi: delayed %s %zu %llu %.9g %.9g\n", to_string(key.first), key.second,
                 static_cast<unsigned long long>(d.calls), d.call_s, d.waited_s);
  if (out != stderr) std::fclose(out);
}

}  // namespace collrepro::pmpi
