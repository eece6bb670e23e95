#include "config/sweep.hpp"

#include <algorithm>

namespace collbench {

namespace {

std::vector<const SweepFamily*>& registered_families() {
  static std::vector<const SweepFamily*> list;
  return list;
}

}  // namespace

std::span<const SweepFamily* const> sweep_families() { return registered_families(); }

const SweepFamily* sweep_family_of(collrepro::Collective c) {
  for (const SweepFamily* f : sweep_families())
    if (f->handles(c)) return f;
  return nullptr;
}

void add_sweep_family(const SweepFamily& family) {
  auto& list = registered_families();
  const auto at = std::lower_bound(list.begin(), list.end(), &family,
                                   [](const SweepFamily* a, const SweepFamily* b) { return a->name() < b->name(); });
  list.insert(at, &family);
}

SweepSource::SweepSource(YAML::Node top, YAML::Node setting, std::string prefix)
    : top_(std::move(top)), setting_(std::move(setting)), prefix_(std::move(prefix)) {}

std::optional<SweepSource::Field> SweepSource::get(const std::string& key) const {
  if (setting_.IsDefined() && setting_.IsMap())
    if (const YAML::Node n = setting_[key]) return Field{n, prefix_ + key};
  if (const YAML::Node n = top_[key]) return Field{n, key};
  return std::nullopt;
}

bool SweepSource::own(const std::string& key) const {
  const YAML::Node& map = setting_.IsDefined() && setting_.IsMap() ? setting_ : top_;
  return static_cast<bool>(map[key]);
}

const std::vector<std::string>& common_sweep_keys() {
  static const std::vector<std::string> keys = {"collective", "algorithms", "sizes", "placements", "arrival", "call"};
  return keys;
}

}  // namespace collbench
