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
// collective. The registry is the same in every process, so the slots are too.
struct Counters {
  Counters() {
    for (std::size_t i = 0; i < algorithms.size(); ++i) slot_of[algorithms[i]] = i;
  }
  std::mutex m;
  std::vector<const Algorithm*> algorithms = Registry::global().all();
  std::unordered_map<const Algorithm*, std::size_t> slot_of;
  std::vector<std::uint64_t> calls = std::vector<std::uint64_t>(algorithms.size() + all_collectives().size(), 0);
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

void count_served(Collective c, const Algorithm* algorithm) {
  Counters& k = counters();
  std::lock_guard<std::mutex> lock(k.m);
  ++k.calls[slot(k, c, algorithm)];
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
  for (std::size_t i = 0; i < total.size(); ++i) {
    if (total[i] == 0) continue;
    const bool native = i >= k.algorithms.size();
    const Collective c = native ? all_collectives()[i - k.algorithms.size()] : k.algorithms[i]->info().collective;
    std::fprintf(out, "collrepro-pmpi: served %s %s %llu\n", to_string(c),
                 native ? "native" : k.algorithms[i]->info().name.c_str(), static_cast<unsigned long long>(total[i]));
  }
  for (const auto& [key, d] : k.delayed)
    std::fprintf(out, "collrepro-pmpi: delayed %s %zu %llu %.9g %.9g\n", to_string(key.first), key.second,
                 static_cast<unsigned long long>(d.calls), d.call_s, d.waited_s);
  if (out != stderr) std::fclose(out);
}

}  // namespace collrepro::pmpi
