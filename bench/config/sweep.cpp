#include "config/sweep.hpp"

namespace collbench {

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
