#include "selection.hpp"

#include <cstdio>
#include <mutex>
#include <set>

namespace collrepro::pmpi {
namespace {

void warn_once(const std::string& key, const std::string& line) {
  static std::mutex m;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(m);
  if (said.insert(key).second) std::fprintf(stderr, "collrepro-pmpi: %s (said once)\n", line.c_str());
}

const Candidate* named(const std::vector<Candidate>& candidates, const std::string& name) {
  for (const Candidate& c : candidates)
    if (c.algorithm->info().name == name) return &c;
  return nullptr;
}

// The named algorithm when it supports the shape; otherwise native, with a warning.
const Algorithm* chosen(const std::string& why, const std::string& name, const Query& q,
                        const std::vector<Candidate>& candidates, const std::string& shape) {
  if (name == "native") return nullptr;
  const Candidate* c = named(candidates, name);
  if (!c || c->algorithm->info().kind == Kind::Native) return nullptr;  // not registered for this collective
  if (!c->support) {
    warn_once(why + name + to_string(q.collective),
              why + name + " does not support " + to_string(q.collective) + " " + shape + ": " + c->support.reason +
                  "; the native call serves it");
    return nullptr;
  }
  return c->algorithm;
}

const Algorithm* cheapest(const std::vector<Candidate>& candidates) {
  const Candidate* best = nullptr;
  for (const Candidate& c : candidates) {
    if (!c.support) continue;
    if (!best || c.cost.seconds(kAlpha, kBeta) < best->cost.seconds(kAlpha, kBeta)) best = &c;
  }
  if (!best || best->algorithm->info().kind == Kind::Native) return nullptr;
  return best->algorithm;
}

}  // namespace

const Algorithm* select(const Settings& s, const Query& q, const std::vector<Candidate>& candidates,
                        const std::string& shape) {
  if (!s.enabled) return nullptr;
  if (!s.forced.empty()) return chosen("COLLREPRO_PMPI_FORCE=", s.forced, q, candidates, shape);
  if (s.rules) {
    const auto name = s.rules->select(q);
    return name ? chosen("rule algorithm=", *name, q, candidates, shape) : nullptr;
  }
  return cheapest(candidates);
}

}  // namespace collrepro::pmpi
