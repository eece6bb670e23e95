#include "collrepro/registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace collrepro {

const char* contract::to_string(Collective c) { return name(c).data(); }

const std::vector<Collective>& all_collectives() {
  static const std::vector<Collective> all = [] {
    const auto values = contract::all<Collective>();
    return std::vector<Collective>(values.begin(), values.end());
  }();
  return all;
}

Collective collective_from_string(const std::string& s) {
  std::string names;
  for (Collective c : all_collectives()) {
    if (s == to_string(c)) return c;
    names += (names.empty() ? "" : ", ") + std::string(to_string(c));
  }
  throw std::invalid_argument("unknown collective '" + s + "' (use one of " + names + ")");
}

const char* contract::to_string(Kind k) { return name(k).data(); }

const char* contract::to_string(CallForm f) { return name(f).data(); }
const char* contract::to_string(Topology t) { return name(t).data(); }

void start_call(Runner& r) {
  if (auto* started = dynamic_cast<StartedRunner*>(&r)) return started->start();
  r.run();
}

void wait_call(Runner& r) {
  if (auto* started = dynamic_cast<StartedRunner*>(&r)) started->wait();
}

Support Algorithm::supports_call(CallForm form, const Capabilities&) const {
  const auto offered = calls();
  if (std::find(offered.begin(), offered.end(), form) != offered.end()) return Support::yes();
  std::string list;
  for (CallForm f : offered) list += (list.empty() ? "" : ", ") + std::string(to_string(f));
  return Support::no("offers no " + std::string(to_string(form)) + " call (its forms: " + list + ")");
}

Registry& Registry::global() {
  static Registry registry;
  return registry;
}

bool Registry::add(std::unique_ptr<const Algorithm> algorithm, std::string_view file) {
  const AlgorithmInfo& info = algorithm->info();
  if (find(info.collective, info.name))
    throw std::logic_error("algorithm registered twice: " + std::string(to_string(info.collective)) + "/" +
                           info.name);
  const auto at = file.rfind("algorithms/");
  entries_.push_back({std::move(algorithm), std::string(at == std::string_view::npos ? file : file.substr(at))});
  std::sort(entries_.begin(), entries_.end(), [](const Entry& x, const Entry& y) {
    return std::pair(x.algorithm->info().collective, x.algorithm->info().name) <
           std::pair(y.algorithm->info().collective, y.algorithm->info().name);
  });
  return true;
}

std::vector<const Algorithm*> Registry::all() const {
  std::vector<const Algorithm*> out;
  for (const auto& e : entries_) out.push_back(e.algorithm.get());
  return out;
}

std::vector<const Algorithm*> Registry::of(Collective c) const {
  std::vector<const Algorithm*> out;
  for (const auto& e : entries_)
    if (e.algorithm->info().collective == c) out.push_back(e.algorithm.get());
  return out;
}

const Algorithm* Registry::find(Collective c, const std::string& name) const {
  for (const auto& e : entries_)
    if (e.algorithm->info().collective == c && e.algorithm->info().name == name) return e.algorithm.get();
  return nullptr;
}

std::string Registry::source_file(const Algorithm& a) const {
  for (const auto& e : entries_)
    if (e.algorithm.get() == &a) return e.file;
  return "";
}

}  // namespace collrepro
