// Reading YAML configuration values, each with the config path it came from, so that every
// problem becomes one ConfigError naming the field and the fix. Pure (no MPI); shared by the
// configuration core (config.cpp) and every family's sweep parser.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/enums.hpp"
#include "base/errors.hpp"

namespace collbench {

// A list of strings with the field path of the list, for error messages.
struct Names {
  std::vector<std::string> values;
  std::string field;
  bool list = false;  // written as a YAML list (then items are named field[i])

  // The config path of item i: "algorithms[1]", or "algorithms" for a single value.
  std::string at(std::size_t i) const { return list ? field + "[" + std::to_string(i) + "]" : field; }
};

std::string show(const YAML::Node& n);  // a node as written, for messages
std::string join(const std::vector<std::string>& v, const std::string& sep = ", ");
bool contains(const std::vector<std::string>& v, const std::string& s);

std::string as_string(const YAML::Node& n, const std::string& field);
long as_int(const YAML::Node& n, const std::string& field, long lo, long hi);
double as_double(const YAML::Node& n, const std::string& field);
bool as_bool(const YAML::Node& n, const std::string& field);
// A non-negative decimal integer (at most 18 digits, so it cannot overflow); anything else is
// ConfigError(field, problem).
long parse_count(const std::string& digits, const std::string& field, const std::string& problem);

template <class E>
E as_enum(const YAML::Node& n, const std::string& field) {
  const std::string s = as_string(n, field);
  if (const auto v = parse_enum<E>(s)) return *v;
  throw config_error(field, "= \"" + s + "\" is not one of " + enum_choices<E>());
}

// A list field: a single scalar or a non-empty sequence of scalars.
std::vector<YAML::Node> items(const YAML::Node& n, const std::string& field);
std::string item_field(const std::string& field, const YAML::Node& list, std::size_t i);
Names names(const YAML::Node& n, const std::string& field);
std::vector<std::size_t> parse_sizes(const YAML::Node& n, const std::string& field);

// The whole document, before anything reads it: every map key a plain scalar given once
// ("config error: <source>:<line>: sizes is given twice (keep one)"), and at most
// kMaxYamlNodes values once aliases are expanded. `where` names the text ("quick.yaml").
inline constexpr std::size_t kMaxYamlNodes = 100000;
void check_document(const YAML::Node& root, const std::string& where);

// Unknown keys of a map: "config error: <prefix><key> is not a known key (did you mean ...?)".
void check_keys(const YAML::Node& map, const std::string& prefix, const std::vector<std::string>& valid);
ConfigError unknown_key(const std::string& prefix, const std::string& key, const std::vector<std::string>& valid);

nlohmann::json to_json(const YAML::Node& n);

}  // namespace collbench
