#include "config/config_yaml.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>

#include "config/units.hpp"

namespace collbench {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

ConfigError unknown_key(const std::string& prefix, const std::string& key, const std::vector<std::string>& valid) {
  std::string best;
  std::size_t best_d = 3;
  for (const auto& k : valid) {
    const std::size_t d = edit_distance(key, k);
    if (d < best_d) best_d = d, best = k;
  }
  const std::string hint = best.empty() ? "(valid keys: " + join(valid) + ")" : "(did you mean " + prefix + best + "?)";
  return config_error(prefix + excerpt(key), "is not a known key " + hint);
}

void check_keys(const YAML::Node& map, const std::string& prefix, const std::vector<std::string>& valid) {
  for (const auto& kv : map) {
    const std::string key = kv.first.as<std::string>();
    if (!contains(valid, key)) throw unknown_key(prefix, key, valid);
  }
}

namespace {

struct DocumentCheck {
  std::string where;
  std::size_t nodes = 0;

  std::string at(const YAML::Node& n) const {
    const YAML::Mark m = n.Mark();
    return m.is_null() ? where : where + ":" + std::to_string(m.line + 1);
  }

  void visit(const YAML::Node& n, const std::string& path, int depth) {
    if (++nodes > kMaxYamlNodes || depth > 64)
      throw ConfigError("config error: " + where + ": the document holds more than " + std::to_string(kMaxYamlNodes) +
                        " values or nests deeper than 64 levels once aliases are expanded (simplify it)");
    if (n.IsSequence())
      for (std::size_t i = 0; i < n.size(); ++i) visit(n[i], path + "[" + std::to_string(i) + "]", depth + 1);
    if (!n.IsMap()) return;
    std::set<std::string> keys;
    for (const auto& kv : n) {
      if (!kv.first.IsScalar())
        throw ConfigError("config error: " + at(kv.first) + ": " + (path.empty() ? "" : path + ": ") +
                          "a key must be a plain name, got " + show(kv.first));
      const std::string key = path.empty() ? kv.first.Scalar() : path + "." + kv.first.Scalar();
      if (!keys.insert(kv.first.Scalar()).second)
        throw ConfigError("config error: " + at(kv.first) + ": " + excerpt(key) + " is given twice (keep one)");
      visit(kv.second, key, depth + 1);
    }
  }
};

}  // namespace

void check_document(const YAML::Node& root, const std::string& where) { DocumentCheck{where}.visit(root, "", 0); }

std::string show(const YAML::Node& n) {
  if (n.IsScalar()) return quote(n.Scalar());
  YAML::Emitter e;
  e << YAML::Flow << n;
  return excerpt(e.c_str());
}

std::string as_string(const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) throw config_error(field, "= " + show(n) + " must be a single value, not a list or map");
  return n.Scalar();
}

namespace {
// `s` read whole by `convert` (a std::sto* call); nullopt when it fails or leaves characters.
template <class Convert>
auto read_whole(const std::string& s, Convert convert) -> std::optional<decltype(convert(s, nullptr))> {
  std::size_t used = 0;
  try {
    const auto v = convert(s, &used);
    if (used > 0 && used == s.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}
}  // namespace

long as_int(const YAML::Node& n, const std::string& field, long lo, long hi) {
  const std::string s = as_string(n, field);
  const auto v = read_whole(s, [](const std::string& t, std::size_t* used) { return std::stol(t, used); });
  if (!v) throw config_error(field, "= " + quote(s) + " must be an integer");
  if (*v < lo || *v > hi)
    throw config_error(field, "= " + excerpt(s) + " is out of range (use " + std::to_string(lo) + ".." + std::to_string(hi) + ")");
  return *v;
}

double as_double(const YAML::Node& n, const std::string& field) {
  const std::string s = as_string(n, field);
  const auto v = read_whole(s, [](const std::string& t, std::size_t* used) { return std::stod(t, used); });
  if (!v) throw config_error(field, "= " + quote(s) + " must be a number");
  return *v;
}

bool as_bool(const YAML::Node& n, const std::string& field) {
  const std::string s = as_string(n, field);
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  throw config_error(field, "= " + quote(s) + " must be true or false");
}

long parse_count(const std::string& digits, const std::string& field, const std::string& problem) {
  if (digits.empty() || digits.size() > 18 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw config_error(field, problem);
  return std::stol(digits);
}

// A list field: a single scalar or a sequence of scalars.
std::vector<YAML::Node> items(const YAML::Node& n, const std::string& field) {
  std::vector<YAML::Node> out;
  if (n.IsScalar()) out.push_back(n);
  else if (n.IsSequence()) {
    for (std::size_t i = 0; i < n.size(); ++i) {
      if (!n[i].IsScalar())
        throw config_error(field + "[" + std::to_string(i) + "]", "= " + show(n[i]) + " must be a single value");
      out.push_back(n[i]);
    }
  } else {
    throw config_error(field, "= " + show(n) + " must be a value or a list of values");
  }
  if (out.empty()) throw config_error(field, "is an empty list (give at least one value)");
  return out;
}

std::string item_field(const std::string& field, const YAML::Node& list, std::size_t i) {
  return list.IsSequence() ? field + "[" + std::to_string(i) + "]" : field;
}

Names names(const YAML::Node& n, const std::string& field) {
  Names out;
  out.field = field;
  out.list = n.IsSequence();
  for (const auto& item : items(n, field)) out.values.push_back(item.Scalar());
  return out;
}

nlohmann::json to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return nullptr;
    case YAML::NodeType::Sequence: {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& x : n) a.push_back(to_json(x));
      return a;
    }
    case YAML::NodeType::Map: {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& kv : n) o[kv.first.as<std::string>()] = to_json(kv.second);
      return o;
    }
    case YAML::NodeType::Scalar: break;
  }
  const std::string s = n.Scalar();
  if (n.Tag() == "!") return s;  // quoted: a string
  if (s == "true") return true;
  if (s == "false") return false;
  try {
    std::size_t used = 0;
    const long long i = std::stoll(s, &used);
    if (used == s.size()) return i;
    const double d = std::stod(s, &used);
    if (used == s.size()) return d;
  } catch (const std::exception&) {
  }
  return s;
}

std::vector<std::size_t> parse_sizes(const YAML::Node& n, const std::string& field) {
  std::vector<std::size_t> out;
  std::set<std::size_t> seen;
  const auto list = items(n, field);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string f = item_field(field, n, i);
    try {
      for (std::size_t v : parse_size_spec(as_string(list[i], f)))
        if (seen.insert(v).second) out.push_back(v);
    } catch (const std::invalid_argument& e) {
      throw config_error(f, "= " + quote(list[i].Scalar()) + ": " + e.what());
    }
    if (out.size() > kMaxSizes)
      throw config_error(field, "has more than " + std::to_string(kMaxSizes) + " sizes (use fewer ranges or larger steps)");
  }
  return out;
}

}  // namespace collbench
