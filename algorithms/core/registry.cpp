#include "collrepro/registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace collrepro {

const char* to_string(Collective c) {
  switch (c) {
    case Collective::Allgather: return "allgather";
    case Collective::Allgatherv: return "allgatherv";
    case Collective::NeighborAlltoall: return "neighbor-alltoall";
    case Collective::NeighborAllgather: return "neighbor-allgather";
    case Collective::NeighborAlltoallw: return "neighbor-alltoallw";
  }
  return "?";
}

Collective collective_from_string(const std::string& s) {
  for (Collective c : {Collective::Allgather, Collective::Allgatherv, Collective::NeighborAlltoall,
                       Collective::NeighborAllgather, Collective::NeighborAlltoallw})
    if (s == to_string(c)) return c;
  throw std::invalid_argument("unknown collective '" + s +
                              "' (use allgather, allgatherv, neighbor-alltoall, neighbor-allgather or "
                              "neighbor-alltoallw)");
}

const char* to_string(Kind k) {
  switch (k) {
    case Kind::Proposed: return "proposed";
    case Kind::Baseline: return "baseline";
    case Kind::Native: return "native";
  }
  return "?";
}

Registry& Registry::global() {
  static Registry registry;
  return registry;
}

bool Registry::add(std::unique_ptr<const Algorithm> algorithm) {
  const AlgorithmInfo& info = algorithm->info();
  if (find(info.collective, info.name))
    throw std::logic_error("algorithm registered twice: " + std::string(to_string(info.collective)) + "/" +
                           info.name);
  algorithms_.push_back(std::move(algorithm));
  std::sort(algorithms_.begin(), algorithms_.end(), [](const auto& x, const auto& y) {
    return std::pair(x->info().collective, x->info().name) < std::pair(y->info().collective, y->info().name);
  });
  return true;
}

std::vector<const Algorithm*> Registry::all() const {
  std::vector<const Algorithm*> out;
  for (const auto& a : algorithms_) out.push_back(a.get());
  return out;
}

std::vector<const Algorithm*> Registry::of(Collective c) const {
  std::vector<const Algorithm*> out;
  for (const auto& a : algorithms_)
    if (a->info().collective == c) out.push_back(a.get());
  return out;
}

const Algorithm* Registry::find(Collective c, const std::string& name) const {
  for (const auto& a : algorithms_)
    if (a->info().collective == c && a->info().name == name) return a.get();
  return nullptr;
}

}  // namespace collrepro
