#include "config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <numeric>
#include <set>
#include <sstream>

#include "errors.hpp"
#include "units.hpp"

namespace collbench {

namespace {

// ------------------------------------------------------------------ schema

const std::vector<std::string>& sweep_keys() {
  static const std::vector<std::string> keys = {"collective", "algorithms", "pair_mode", "groups",
                                                "blocks", "distributions", "neighborhoods", "dims",
                                                "sizes", "placements"};
  return keys;
}
const std::vector<std::string>& global_keys() {
  static const std::vector<std::string> keys = {"experiment", "description", "launches", "validation",
                                                "validation_max_bytes", "binding", "timing", "settings",
                                                "slurm"};
  return keys;
}
const std::vector<std::string>& timing_keys() {
  static const std::vector<std::string> keys = {"sync", "clock", "warmup", "reps", "tukey_k", "window",
                                                "sync_fit_points", "sync_exchanges", "resync", "agree_every"};
  return keys;
}
const std::vector<std::string>& group_keys() {
  static const std::vector<std::string> keys = {"ratios", "sizes"};
  return keys;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

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

std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
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
  return config_error(prefix + key, "is not a known key " + hint);
}

void check_keys(const YAML::Node& map, const std::string& prefix, const std::vector<std::string>& valid) {
  for (const auto& kv : map) {
    const std::string key = kv.first.as<std::string>();
    if (!contains(valid, key)) throw unknown_key(prefix, key, valid);
  }
}

// ------------------------------------------------------------------ scalars

std::string show(const YAML::Node& n) {
  if (n.IsScalar()) return "\"" + n.Scalar() + "\"";
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

std::string as_string(const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) throw config_error(field, "= " + show(n) + " must be a single value, not a list or map");
  return n.Scalar();
}

long as_int(const YAML::Node& n, const std::string& field, long lo, long hi) {
  const std::string s = as_string(n, field);
  std::size_t used = 0;
  long v = 0;
  try {
    v = std::stol(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size())
    throw config_error(field, "= \"" + s + "\" must be an integer");
  if (v < lo || v > hi)
    throw config_error(field, "= " + s + " is out of range (use " + std::to_string(lo) + ".." + std::to_string(hi) + ")");
  return v;
}

double as_double(const YAML::Node& n, const std::string& field) {
  const std::string s = as_string(n, field);
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size()) throw config_error(field, "= \"" + s + "\" must be a number");
  return v;
}

bool as_bool(const YAML::Node& n, const std::string& field) {
  const std::string s = as_string(n, field);
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  throw config_error(field, "= \"" + s + "\" must be true or false");
}

std::string one_of(const YAML::Node& n, const std::string& field, const std::vector<std::string>& allowed) {
  const std::string s = as_string(n, field);
  if (!contains(allowed, s)) throw config_error(field, "= \"" + s + "\" is not one of " + join(allowed, " | "));
  return s;
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
  out.explicit_set = true;
  out.list = n.IsSequence();
  for (const auto& item : items(n, field)) out.values.push_back(item.Scalar());
  return out;
}

// ------------------------------------------------------------------ YAML <-> JSON

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

// ------------------------------------------------------------------ --set

struct PathElem {
  std::string key;
  long index = -1;  // >= 0: a sequence index
};

std::vector<PathElem> parse_path(const std::string& path) {
  std::vector<PathElem> out;
  std::size_t i = 0;
  while (i < path.size()) {
    std::size_t j = i;
    while (j < path.size() && path[j] != '.' && path[j] != '[') ++j;
    if (j > i) out.push_back({path.substr(i, j - i), -1});
    while (j < path.size() && path[j] == '[') {
      const auto close = path.find(']', j);
      if (close == std::string::npos) throw ConfigError("config error: --set " + path + ": missing ']'");
      const std::string idx = path.substr(j + 1, close - j - 1);
      if (idx.empty() || !std::all_of(idx.begin(), idx.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        throw ConfigError("config error: --set " + path + ": index [" + idx + "] must be a number");
      out.push_back({"", std::stol(idx)});
      j = close + 1;
    }
    if (j < path.size() && path[j] == '.') ++j;
    i = j;
  }
  if (out.empty() || out.front().index >= 0) throw ConfigError("config error: --set needs key=value, got \"" + path + "\"");
  return out;
}

void set_path(YAML::Node root, const std::vector<PathElem>& path, const YAML::Node& value, const std::string& text) {
  YAML::Node cur = root;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const bool last = i + 1 == path.size();
    const PathElem& e = path[i];
    if (e.index < 0) {
      if (!cur.IsMap() && !cur.IsNull())
        throw ConfigError("config error: --set " + text + ": " + e.key + " is inside a value that is not a map");
      if (last) {
        cur[e.key] = value;
        return;
      }
      YAML::Node next = cur[e.key];
      if (!next.IsDefined() || next.IsNull()) {
        cur[e.key] = YAML::Node(YAML::NodeType::Map);
        next.reset(cur[e.key]);
      }
      cur.reset(next);
    } else {
      if (!cur.IsSequence() || static_cast<std::size_t>(e.index) > cur.size())
        throw ConfigError("config error: --set " + text + ": index [" + std::to_string(e.index) +
                          "] does not exist (the list has " + std::to_string(cur.IsSequence() ? cur.size() : 0) +
                          " entries)");
      const auto idx = static_cast<std::size_t>(e.index);
      if (idx == cur.size()) {
        cur.push_back(last ? value : YAML::Node(YAML::NodeType::Map));
        if (last) return;
      }
      if (last) {
        cur[idx] = value;
        return;
      }
      YAML::Node next = cur[idx];
      cur.reset(next);
    }
  }
}

void apply_override(YAML::Node root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("config error: --set needs key=value (e.g. timing.reps=50), got \"" + assignment + "\"");
  const std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  YAML::Node value;
  try {
    value = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError("config error: --set " + assignment + ": the value is not valid YAML (" + e.msg + ")");
  }
  if (value.IsNull() && text.empty()) throw ConfigError("config error: --set " + key + "= has no value");
  const auto path = parse_path(key);
  set_path(root, path, value, assignment);
  // A whole top-level sweep key set on the command line wins over every setting's own value.
  if (path.size() == 1 && contains(sweep_keys(), path[0].key) && root["settings"] && root["settings"].IsSequence())
    for (std::size_t i = 0; i < root["settings"].size(); ++i) {
      YAML::Node s = root["settings"][i];
      if (s.IsMap() && s[path[0].key]) s[path[0].key] = value;
    }
}

// ------------------------------------------------------------------ fields

GroupSpec parse_group(const YAML::Node& n, const std::string& field, GroupSpec::Kind kind) {
  const std::string s = as_string(n, field);
  GroupSpec g;
  g.kind = kind;
  g.text = s;
  g.field = field;
  const auto slash = s.find('/');
  auto num = [&](const std::string& part) -> long {
    if (part.empty() || !std::all_of(part.begin(), part.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      throw config_error(field, "= \"" + s + "\" must be p/q with positive integers, e.g. \"25/7\"");
    return std::stol(part);
  };
  if (slash == std::string::npos) throw config_error(field, "= \"" + s + "\" must be p/q with positive integers, e.g. \"25/7\"");
  g.a = num(s.substr(0, slash));
  g.b = num(s.substr(slash + 1));
  if (g.a <= 0 || g.b <= 0) throw config_error(field, "= \"" + s + "\" needs two non-empty groups (p, q >= 1)");
  return g;
}

BlockRatio parse_block(const YAML::Node& n, const std::string& field) {
  const std::string s = as_string(n, field);
  const auto colon = s.find(':');
  auto num = [&](const std::string& part) -> std::size_t {
    if (part.empty() || !std::all_of(part.begin(), part.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      throw config_error(field, "= \"" + s + "\" must be kA:kB with non-negative integers, e.g. \"4:1\" or \"1:0\"");
    return std::stoul(part);
  };
  if (colon == std::string::npos)
    throw config_error(field, "= \"" + s + "\" must be kA:kB with non-negative integers, e.g. \"4:1\" or \"1:0\"");
  BlockRatio b{num(s.substr(0, colon)), num(s.substr(colon + 1)), s, field};
  if (b.ka == 0 && b.kb == 0) throw config_error(field, "= \"0:0\" moves no data (use 1:0 for half-duplex A->B)");
  return b;
}

std::vector<std::size_t> parse_sizes(const YAML::Node& n, const std::string& field) {
  std::vector<std::size_t> out;
  const auto list = items(n, field);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string f = item_field(field, n, i);
    try {
      for (std::size_t v : parse_size_spec(as_string(list[i], f)))
        if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    } catch (const std::invalid_argument& e) {
      throw config_error(f, "= \"" + list[i].Scalar() + "\": " + e.what());
    }
  }
  return out;
}

const std::vector<std::string>& collectives() {
  static const std::vector<std::string> c = {"allgather", "allgatherv", "neighbor-alltoall", "neighbor-allgather",
                                             "neighbor-alltoallw"};
  return c;
}

// Reads the sweep keys present in `map` into `s` (over the values it already has).
void read_sweep(const YAML::Node& map, const std::string& prefix, Sweep& s) {
  if (const auto n = map["collective"]) {
    s.collective = one_of(n, prefix + "collective", collectives());
    s.collective_field = prefix + "collective";
  }
  if (const auto n = map["algorithms"]) s.algorithms = names(n, prefix + "algorithms");
  if (const auto n = map["pair_mode"]) s.pair_mode = one_of(n, prefix + "pair_mode", {"intercomm", "intracomm"});
  if (const auto n = map["groups"]) {
    const std::string f = prefix + "groups";
    if (!n.IsMap()) throw config_error(f, "must be a map with ratios: [...] and/or sizes: [...]");
    check_keys(n, f + ".", group_keys());
    s.groups.clear();
    s.groups_explicit = true;
    for (const auto& [key, kind] : {std::pair{"ratios", GroupSpec::Kind::Ratio}, std::pair{"sizes", GroupSpec::Kind::Sizes}})
      if (const auto list = n[key]) {
        const auto v = items(list, f + "." + key);
        for (std::size_t i = 0; i < v.size(); ++i)
          s.groups.push_back(parse_group(v[i], item_field(f + "." + key, list, i), kind));
      }
    if (s.groups.empty()) throw config_error(f, "has neither ratios nor sizes (e.g. groups: {ratios: [\"1/1\"]})");
  }
  if (const auto n = map["blocks"]) {
    const std::string f = prefix + "blocks";
    const auto v = items(n, f);
    s.blocks.clear();
    s.blocks_explicit = true;
    for (std::size_t i = 0; i < v.size(); ++i) s.blocks.push_back(parse_block(v[i], item_field(f, n, i)));
  }
  if (const auto n = map["distributions"]) s.distributions = names(n, prefix + "distributions");
  if (const auto n = map["neighborhoods"]) s.neighborhoods = names(n, prefix + "neighborhoods");
  if (const auto n = map["dims"]) s.dims = names(n, prefix + "dims");
  if (const auto n = map["sizes"]) {
    s.sizes = parse_sizes(n, prefix + "sizes");
    s.sizes_field = prefix + "sizes";
  }
  if (const auto n = map["placements"]) s.placements = names(n, prefix + "placements");
}

Sweep default_sweep() {
  Sweep s;
  s.algorithms = {{"all"}, "algorithms", false};
  s.groups.push_back({GroupSpec::Kind::Ratio, 1, 1, "1/1", "groups.ratios[0]"});
  s.blocks.push_back({1, 1, "1:1", "blocks[0]"});
  s.distributions = {{"equal"}, "distributions", false};
  s.dims = {{"auto"}, "dims", false};
  s.placements = {{"block"}, "placements", false};
  s.sizes_field = "sizes";
  s.collective_field = "collective";
  return s;
}

void read_timing(const YAML::Node& n, Timing& t) {
  if (!n.IsMap()) throw config_error("timing", "must be a map (e.g. timing: {reps: 20})");
  check_keys(n, "timing.", timing_keys());
  if (const auto v = n["sync"]) t.sync = one_of(v, "timing.sync", {"barrier", "double-barrier", "window"});
  if (const auto v = n["clock"]) t.clock = one_of(v, "timing.clock", {"mpi-wtime", "monotonic", "tsc"});
  if (const auto v = n["warmup"]) t.warmup = static_cast<int>(as_int(v, "timing.warmup", 0, 1000000));
  if (const auto v = n["reps"]) t.reps = static_cast<int>(as_int(v, "timing.reps", 1, 10000000));
  if (const auto v = n["tukey_k"]) {
    t.tukey_k = as_double(v, "timing.tukey_k");
    if (!(t.tukey_k > 0)) throw config_error("timing.tukey_k", "= " + v.Scalar() + " must be positive (3 is usual)");
  }
  if (const auto v = n["window"]) {
    const std::string s = as_string(v, "timing.window");
    if (s == "auto") t.window.reset();
    else {
      try {
        t.window = parse_duration(s);
      } catch (const std::invalid_argument& e) {
        throw config_error("timing.window", "= \"" + s + "\": " + e.what() + " (or auto)");
      }
      if (!(*t.window > 0)) throw config_error("timing.window", "= \"" + s + "\" must be positive (or auto)");
    }
  }
  if (const auto v = n["sync_fit_points"]) t.sync_fit_points = static_cast<int>(as_int(v, "timing.sync_fit_points", 1, 10000));
  if (const auto v = n["sync_exchanges"]) t.sync_exchanges = static_cast<int>(as_int(v, "timing.sync_exchanges", 1, 10000));
  if (const auto v = n["resync"]) t.resync = one_of(v, "timing.resync", {"point", "launch"});
  if (const auto v = n["agree_every"]) t.agree_every = static_cast<int>(as_int(v, "timing.agree_every", 1, 10000000));
}

void check_experiment_name(const std::string& s) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
      }))
    throw config_error("experiment", "= \"" + s + "\" must be a non-empty name of letters, digits, '-', '_' or '.'");
}

void require_sweep(const Sweep& s, const std::string& where) {
  if (s.collective.empty())
    throw config_error(where + "collective", "is missing (allgather, allgatherv, neighbor-alltoall, neighbor-allgather or neighbor-alltoallw)");
  if (s.sizes.empty()) throw config_error(where + "sizes", "is missing (e.g. sizes: \"1KiB..1MiB x4\")");
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

std::string Config::fingerprint() const {
  nlohmann::json j = effective;
  j.erase("description");
  j.erase("launches");
  j.erase("slurm");
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a(j.dump())));
  return buf;
}

Config parse_config(const std::string& yaml_text, const std::vector<std::string>& overrides, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw ConfigError("config error: " + source + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) throw ConfigError("config error: " + source + ": the top level must be a map of keys");
  for (const auto& o : overrides) apply_override(root, o);

  std::vector<std::string> top_keys = global_keys();
  top_keys.insert(top_keys.end(), sweep_keys().begin(), sweep_keys().end());
  check_keys(root, "", top_keys);

  // slurm: belongs to slurm/collslurm (which validates it); collbench accepts and ignores it,
  // so that one config file serves both, and it is not part of the fingerprint.
  if (const auto n = root["slurm"]; n && !n.IsMap() && !n.IsNull())
    throw config_error("slurm", "= " + show(n) + " must be a map of Slurm settings (see slurm/README.md)");

  Config c;
  if (!root["experiment"]) throw config_error("experiment", "is missing (give the experiment a name, e.g. experiment: quick)");
  c.experiment = as_string(root["experiment"], "experiment");
  check_experiment_name(c.experiment);
  if (const auto n = root["description"]) c.description = as_string(n, "description");
  if (const auto n = root["launches"]) c.launches = static_cast<int>(as_int(n, "launches", 1, 100000));
  if (const auto n = root["validation"]) c.validation = as_bool(n, "validation");
  if (const auto n = root["validation_max_bytes"]) {
    try {
      c.validation_max_bytes = parse_bytes(as_string(n, "validation_max_bytes"));
    } catch (const std::invalid_argument& e) {
      throw config_error("validation_max_bytes", "= \"" + n.Scalar() + "\": " + e.what());
    }
  }
  if (const auto n = root["binding"]) c.binding = one_of(n, "binding", {"none", "core"});
  if (const auto n = root["timing"]) read_timing(n, c.timing);

  Sweep top = default_sweep();
  read_sweep(root, "", top);
  for (const auto& key : sweep_keys())
    if (root[key]) c.top_sweep_keys.push_back(key);
  c.effective = to_json(root);

  if (const auto settings = root["settings"]) {
    if (!settings.IsSequence() || settings.size() == 0)
      throw config_error("settings", "must be a non-empty list of maps, each with a name and sweep keys");
    c.has_settings = true;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < settings.size(); ++i) {
      const std::string prefix = "settings[" + std::to_string(i) + "].";
      const YAML::Node s = settings[i];
      if (!s.IsMap()) throw config_error("settings[" + std::to_string(i) + "]", "must be a map with a name and sweep keys");
      std::vector<std::string> keys = sweep_keys();
      keys.push_back("name");
      check_keys(s, prefix, keys);
      if (!s["name"]) throw config_error(prefix + "name", "is missing (each setting needs a name, e.g. \"setting 1\")");
      Sweep sw = top;
      sw.name = as_string(s["name"], prefix + "name");
      if (!seen.insert(sw.name).second) throw config_error(prefix + "name", "= \"" + sw.name + "\" is used twice");
      sw.field_prefix = prefix;
      // Fields inherited from the top level keep their top-level path; own fields get the prefix.
      sw.algorithms.explicit_set = sw.distributions.explicit_set = sw.neighborhoods.explicit_set =
          sw.dims.explicit_set = sw.placements.explicit_set = false;
      sw.groups_explicit = sw.blocks_explicit = false;
      read_sweep(s, prefix, sw);
      sw.overrides = to_json(s);
      sw.overrides.erase("name");
      require_sweep(sw, prefix);
      c.sweeps.push_back(std::move(sw));
    }
  } else {
    require_sweep(top, "");
    c.sweeps.push_back(std::move(top));
  }
  return c;
}

std::string config_value(const Config& c, const std::string& path) {
  const nlohmann::json* cur = &c.effective;
  for (const auto& e : parse_path(path)) {
    if (e.index >= 0) {
      if (!cur->is_array() || static_cast<std::size_t>(e.index) >= cur->size()) return "";
      cur = &(*cur)[static_cast<std::size_t>(e.index)];
    } else {
      if (!cur->is_object() || !cur->contains(e.key)) {
        if (path == "launches") return std::to_string(c.launches);
        return "";
      }
      cur = &(*cur)[e.key];
    }
  }
  return cur->is_string() ? cur->get<std::string>() : cur->dump();
}

}  // namespace collbench
