#include "rules.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace collrepro::pmpi {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kAlgorithm = "algorithm=";

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::size_t parse_bytes(const std::string& text, const std::string& where) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || text[0] == '-')
    throw RulesError("at " + where + ": '" + text + "' is not a byte count (write a whole number, e.g. msg_size<=4096)");
  return static_cast<std::size_t>(v);
}

// "P:Q" -> (larger, smaller).
std::pair<int, int> parse_groups(const std::string& text, const std::string& where) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw RulesError("at " + where + ": groups must be written P:Q (e.g. groups=5:3)");
  const auto p = static_cast<int>(parse_bytes(text.substr(0, colon), where));
  const auto q = static_cast<int>(parse_bytes(text.substr(colon + 1), where));
  if (p < 1 || q < 1) throw RulesError("at " + where + ": both groups need at least one process");
  return {std::max(p, q), std::min(p, q)};
}

// A condition key, split into its name, operator and value.
struct Condition {
  std::string name, op, value;
};

Condition split_condition(const std::string& key) {
  if (key == "any") return {"any", "", ""};
  for (const char* op : {"<=", ">", "="}) {
    const auto at = key.find(op);
    if (at != std::string::npos) return {key.substr(0, at), op, key.substr(at + std::string(op).size())};
  }
  return {key, "", ""};
}

const Algorithm* find_servable(Collective c, const std::string& name) {
  const Algorithm* a = Registry::global().find(c, name);
  return a && a->info().kind != Kind::Native ? a : nullptr;
}

bool known_anywhere(const std::string& name) {
  for (Collective c : all_collectives())
    if (find_servable(c, name)) return true;
  return false;
}

// Checks one subtree; `scope` is the collective fixed by an enclosing condition, if any.
void validate(const Json& node, std::optional<Collective> scope, const std::string& where) {
  if (!node.is_object()) throw RulesError("at " + where + ": expected an object of conditions");
  for (const auto& [key, child] : node.items()) {
    const std::string here = where + "/" + key;
    if (starts_with(key, kAlgorithm)) {
      const std::string name = key.substr(std::string(kAlgorithm).size());
      const bool ok = name == "native" || (scope ? find_servable(*scope, name) != nullptr : known_anywhere(name));
      if (!ok)
        throw RulesError("at " + here + ": unknown algorithm '" + name + "'" +
                         (scope ? std::string(" for ") + to_string(*scope) : std::string()) +
                         " (collbench --list-algorithms lists them; native kinds are written 'native')");
      if (!child.is_object() || !child.empty()) throw RulesError("at " + here + ": a leaf's value must be {}");
      continue;
    }
    const Condition c = split_condition(key);
    std::optional<Collective> inner = scope;
    if (c.name == "any" && c.op.empty()) {
    } else if (c.name == "collective" && c.op == "=") {
      try {
        inner = collective_from_string(c.value);
      } catch (const std::invalid_argument&) {
        throw RulesError("at " + here + ": unknown collective '" + c.value + "'");
      }
    } else if (c.name == "groups" && c.op == "=") {
      parse_groups(c.value, here);
    } else if (c.name == "duplex" && c.op == "=") {
      if (c.value != "half" && c.value != "full") throw RulesError("at " + here + ": duplex is half or full");
    } else if (c.name == "neighborhood" && c.op == "=") {
      try {
        iso::Neighborhood::parse(c.value);
      } catch (const std::exception& e) {
        throw RulesError("at " + here + ": " + e.what());
      }
    } else if (c.name == "msg_size" && (c.op == "<=" || c.op == ">")) {
      parse_bytes(c.value, here);
    } else {
      throw RulesError("at " + here + ": unknown condition (use collective=, groups=, duplex=, neighborhood=, "
                       "msg_size<=, msg_size>, any or algorithm=)");
    }
    validate(child, inner, here);
  }
}

bool matches(const Condition& c, const Query& q) {
  if (c.name == "any") return true;
  if (c.name == "collective") return c.value == to_string(q.collective);
  if (c.name == "groups") {
    const auto [larger, smaller] = parse_groups(c.value, c.name);
    return q.larger == larger && q.smaller == smaller;
  }
  if (c.name == "duplex") return q.larger > 0 && (c.value == "half") == q.half_duplex;
  if (c.name == "neighborhood")
    return !q.offsets.empty() && sorted_offsets(iso::Neighborhood::parse(c.value).offsets()) == q.offsets;
  const std::size_t n = parse_bytes(c.value, c.name);
  return c.op == "<=" ? q.msg_size <= n : q.msg_size > n;
}

std::optional<std::string> first_leaf(const Json& node, const Query& q) {
  for (const auto& [key, child] : node.items()) {
    if (starts_with(key, kAlgorithm)) return key.substr(std::string(kAlgorithm).size());
    if (!matches(split_condition(key), q)) continue;
    if (auto found = first_leaf(child, q)) return found;
  }
  return std::nullopt;
}

}  // namespace

std::vector<iso::Offset> sorted_offsets(std::vector<iso::Offset> offsets) {
  std::sort(offsets.begin(), offsets.end());
  return offsets;
}

Rules Rules::parse(const std::string& text) {
  Rules r;
  try {
    r.tree_ = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw RulesError(std::string("not valid JSON: ") + e.what());
  }
  if (!r.tree_.is_object() || r.tree_.empty())
    throw RulesError("the rules must be a non-empty JSON object of conditions (e.g. {\"collective=allgather\": ...})");
  validate(r.tree_, std::nullopt, "");
  return r;
}

Rules Rules::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw RulesError("cannot read '" + path + "' (check COLLREPRO_PMPI_RULES)");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return parse(text.str());
  } catch (const RulesError& e) {
    throw RulesError(path + ": " + e.what());
  }
}

std::optional<std::string> Rules::select(const Query& q) const { return first_leaf(tree_, q); }

}  // namespace collrepro::pmpi
