#include "config/config.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>

#include "config/config_yaml.hpp"
#include "base/errors.hpp"
#include "config/units.hpp"

namespace collbench {

namespace {

// ------------------------------------------------------------------ schema

const std::vector<std::string>& global_keys() {
  static const std::vector<std::string> keys = {"experiment", "description", "launches", "validation",
                                                "validation_max_bytes", "binding", "timing", "settings",
                                                "slurm"};
  return keys;
}
const std::vector<std::string>& timing_keys() {
  static const std::vector<std::string> keys = {"sync", "clock", "warmup", "reps", "tukey_k", "window",
                                                "sync_fit_points", "sync_exchanges", "resync", "agree_every",
                                                "clock_sync", "budget", "residual_bound", "phases", "overlap"};
  return keys;
}

// Every sweep key of any family, after the common ones.
const std::vector<std::string>& all_sweep_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k = common_sweep_keys();
    for (const SweepFamily* f : sweep_families())
      for (const auto& key : f->sweep_keys())
        if (!contains(k, key)) k.push_back(key);
    return k;
  }();
  return keys;
}

bool is_sweep_key(const std::string& key) { return contains(all_sweep_keys(), key); }

constexpr const char* kTooDeep = "nests deeper than 64 levels (simplify it)";

// ------------------------------------------------------------------ --set

struct PathElem {
  std::string key;
  long index = -1;  // >= 0: a sequence index
};

// `option` (--set or --get) names the command-line option in messages.
std::vector<PathElem> parse_path(const std::string& path, const std::string& option) {
  std::vector<PathElem> out;
  std::size_t i = 0;
  while (i < path.size()) {
    std::size_t j = i;
    while (j < path.size() && path[j] != '.' && path[j] != '[') ++j;
    if (j > i) out.push_back({path.substr(i, j - i), -1});
    while (j < path.size() && path[j] == '[') {
      const auto close = path.find(']', j);
      if (close == std::string::npos) throw ConfigError("config error: " + option + " " + excerpt(path) + ": missing ']'");
      const std::string idx = path.substr(j + 1, close - j - 1);
      if (idx.empty() || idx.size() > 9 || !std::all_of(idx.begin(), idx.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        throw ConfigError("config error: " + option + " " + excerpt(path) + ": index [" + excerpt(idx) + "] must be a number");
      out.push_back({"", std::stol(idx)});
      j = close + 1;
    }
    if (j < path.size() && path[j] == '.') ++j;
    i = j;
  }
  if (out.empty() || out.front().index >= 0)
    throw ConfigError("config error: " + option + " needs a key like timing.reps, got " + quote(path));
  return out;
}

void set_path(YAML::Node root, const std::vector<PathElem>& path, const YAML::Node& value, const std::string& text) {
  YAML::Node cur = root;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const bool last = i + 1 == path.size();
    const PathElem& e = path[i];
    if (e.index < 0) {
      if (!cur.IsMap() && !cur.IsNull())
        throw ConfigError("config error: --set " + excerpt(text) + ": " + excerpt(e.key) + " is inside a value that is not a map");
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
        throw ConfigError("config error: --set " + excerpt(text) + ": index [" + std::to_string(e.index) +
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
    throw ConfigError("config error: --set needs key=value (e.g. timing.reps=50), got " + quote(assignment));
  const std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  YAML::Node value;
  try {
    value = YAML::Load(text);
  } catch (const YAML::DeepRecursion&) {
    throw ConfigError("config error: --set " + excerpt(key) + ": the value " + kTooDeep);
  } catch (const YAML::Exception& e) {
    throw ConfigError("config error: --set " + excerpt(assignment) + ": the value is not valid YAML (" + excerpt(e.msg, 100) + ")");
  }
  if (value.IsNull() && text.empty()) throw ConfigError("config error: --set " + excerpt(key) + "= has no value");
  check_document(value, "--set " + excerpt(key));
  const auto path = parse_path(key, "--set");
  set_path(root, path, value, assignment);
  // A whole top-level sweep key set on the command line wins over every setting's own value.
  if (path.size() == 1 && is_sweep_key(path[0].key) && root["settings"] && root["settings"].IsSequence())
    for (std::size_t i = 0; i < root["settings"].size(); ++i) {
      YAML::Node s = root["settings"][i];
      if (s.IsMap() && s[path[0].key]) s[path[0].key] = value;
    }
}

// ------------------------------------------------------------------ sweeps

std::string collective_list() {
  std::string out;
  for (collrepro::Collective c : collrepro::all_collectives())
    if (sweep_family_of(c)) out += (out.empty() ? "" : " | ") + std::string(collrepro::to_string(c));
  return out;
}

// The common keys of one sweep, then the family's own keys (parsed by the family).
Sweep read_sweep(const SweepSource& src, const std::string& name) {
  Sweep s;
  s.name = name;
  s.field_prefix = src.prefix();
  const auto collective = src.get("collective");
  if (!collective) throw config_error(src.prefix() + "collective", "is missing (" + collective_list() + ")");
  s.collective_field = collective->path;
  const std::string text = as_string(collective->node, collective->path);
  for (collrepro::Collective c : collrepro::all_collectives())
    if (text == collrepro::to_string(c)) s.collective = c, s.family = sweep_family_of(c);
  if (!s.family) throw config_error(collective->path, "= " + quote(text) + " is not one of " + collective_list());
  s.algorithms = Names{{"all"}, "algorithms", false};
  if (const auto f = src.get("algorithms")) s.algorithms = names(f->node, f->path);
  s.placements = Names{{std::string(collrepro::contract::name(collrepro::contract::Placement::Block))}, "placements", false};
  if (const auto f = src.get("placements")) s.placements = names(f->node, f->path);
  const auto sizes = src.get("sizes");
  if (!sizes) throw config_error(src.prefix() + "sizes", "is missing (e.g. sizes: \"1KiB..1MiB x4\")");
  s.sizes = parse_sizes(sizes->node, sizes->path);
  s.sizes_field = sizes->path;
  s.calls_field = Names{{"blocking"}, "call", false};
  if (const auto f = src.get("call")) {
    s.calls_field = names(f->node, f->path);
    s.calls.clear();
    for (std::size_t i = 0; i < s.calls_field.values.size(); ++i) {
      const auto form = parse_enum<collrepro::CallForm>(s.calls_field.values[i]);
      if (!form)
        throw config_error(s.calls_field.at(i), "= " + quote(s.calls_field.values[i]) + " is not a call form (use " +
                                                    enum_choices<collrepro::CallForm>() + ")");
      if (std::find(s.calls.begin(), s.calls.end(), *form) != s.calls.end())
        throw config_error(s.calls_field.at(i), "= " + quote(s.calls_field.values[i]) + " is given twice (list each form once)");
      s.calls.push_back(*form);
    }
  }
  s.fields = s.family->parse_sweep(src, s.collective);
  return s;
}

bool family_uses(const Sweep& s, const std::string& key) {
  return contains(common_sweep_keys(), key) || contains(s.family->sweep_keys(s.collective), key);
}

// A key given explicitly where no sweep's collective reads it is a mistake, not a no-op.
void check_unused_keys(const Config& c, const YAML::Node& root) {
  for (const Sweep& s : c.sweeps)
    for (const auto& [key, value] : s.overrides.items()) {
      (void)value;
      if (!family_uses(s, key))
        throw config_error(s.field_prefix + key, "is not used by collective " + std::string(collrepro::to_string(s.collective)) +
                                                     " (remove it)");
    }
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (!is_sweep_key(key)) continue;
    const bool used = std::any_of(c.sweeps.begin(), c.sweeps.end(), [&](const Sweep& s) {
      return family_uses(s, key) && (!c.has_settings || !s.overrides.contains(key));
    });
    const bool overridden_everywhere = c.has_settings && std::all_of(c.sweeps.begin(), c.sweeps.end(), [&](const Sweep& s) {
                                         return s.overrides.contains(key);
                                       });
    if (!used && !overridden_everywhere)
      throw config_error(key, "is not used by collective " + std::string(collrepro::to_string(c.sweeps.front().collective)) +
                                  " (remove it)");
  }
}

// ------------------------------------------------------------------ arrival

const std::vector<std::string>& arrival_keys() {
  static const std::vector<std::string> keys = {"pattern", "max_delay", "seed"};
  return keys;
}

double read_duration(const std::string& text, const std::string& field, double most, const std::string& alternative);

// arrival: {pattern, max_delay, seed} of one sweep. A setting's arrival overrides the top
// level's key by key, so the top level can give max_delay and seed once and each setting its
// pattern. Checked against the timing: a skewed start needs the global clock.
Arrival read_arrival(const YAML::Node& root, const YAML::Node& setting, const std::string& prefix, const Timing& t,
                     std::string& pattern_field) {
  const auto present = [](const YAML::Node& n) { return n.IsDefined() && !n.IsNull(); };
  const YAML::Node own = setting.IsDefined() && setting.IsMap() ? setting["arrival"] : YAML::Node(YAML::NodeType::Undefined);
  const YAML::Node top = root["arrival"];
  for (const auto& [map, path] : {std::pair{own, prefix + "arrival"}, std::pair{top, std::string("arrival")}}) {
    if (!present(map)) continue;
    if (!map.IsMap())
      throw config_error(path, "= " + show(map) + " must be a map (e.g. arrival: {pattern: linear, max_delay: 200us})");
    check_keys(map, path + ".", arrival_keys());
  }
  const auto field = [&](const std::string& key) -> std::optional<SweepSource::Field> {
    if (present(own) && own[key]) return SweepSource::Field{own[key], prefix + "arrival." + key};
    if (present(top) && top[key]) return SweepSource::Field{top[key], "arrival." + key};
    return std::nullopt;
  };
  Arrival a;
  pattern_field = (present(own) ? prefix : std::string()) + "arrival.pattern";
  if (const auto f = field("pattern")) {
    a.pattern = as_enum<ArrivalPattern>(f->node, f->path);
    pattern_field = f->path;
  }
  if (const auto f = field("seed")) a.seed = static_cast<std::uint64_t>(as_int(f->node, f->path, 0, 1L << 62));
  const auto delay = field("max_delay");
  // Checked whatever the pattern (a wrong value is wrong under none too); none keeps 0.
  const double max_delay =
      delay ? read_duration(as_string(delay->node, delay->path), delay->path, kMaxArrivalDelay, "") : 0.0;
  if (!a.skewed()) return a;
  if (!delay)
    throw config_error(prefix + "arrival.max_delay", "is missing: pattern " + to_string(a.pattern) +
                                                         " needs the largest delay (e.g. max_delay: 200us, at most 1 s)");
  a.max_delay_s = max_delay;
  const std::string what = pattern_field + " = " + quote(to_string(a.pattern));
  if (!uses_global_clock(t.sync))
    throw ConfigError("config error: " + what + " needs the global clock to skew the starts, but timing.sync is " +
                      to_string(t.sync) + " (set timing.sync: round-time or window, or arrival pattern none)");
  if (t.sync == SyncMethod::Window && t.window && *t.window <= a.max_delay_s)
    throw config_error("timing.window", "= " + format_seconds(*t.window) + " is not longer than " + delay->path + " = " +
                                            format_seconds(a.max_delay_s) + ": every repetition would start late (use " +
                                            "window: auto, which adds max_delay, or a longer window)");
  return a;
}

void read_settings(const YAML::Node& root, Config& c) {
  const YAML::Node settings = root["settings"];
  if (!settings.IsSequence() || settings.size() == 0)
    throw config_error("settings", "must be a non-empty list of maps, each with a name and sweep keys");
  c.has_settings = true;
  std::set<std::string> seen;
  std::vector<std::string> keys = all_sweep_keys();
  keys.push_back("name");
  for (std::size_t i = 0; i < settings.size(); ++i) {
    const std::string prefix = "settings[" + std::to_string(i) + "].";
    const YAML::Node s = settings[i];
    if (!s.IsMap()) throw config_error("settings[" + std::to_string(i) + "]", "must be a map with a name and sweep keys");
    check_keys(s, prefix, keys);
    if (!s["name"]) throw config_error(prefix + "name", "is missing (each setting needs a name, e.g. \"setting 1\")");
    const std::string name = as_string(s["name"], prefix + "name");
    if (!seen.insert(name).second) throw config_error(prefix + "name", "= " + quote(name) + " is used twice");
    Sweep sw = read_sweep(SweepSource(root, s, prefix), name);
    sw.arrival = read_arrival(root, s, prefix, c.timing, sw.arrival_field);
    sw.overrides = to_json(s);
    sw.overrides.erase("name");
    c.sweeps.push_back(std::move(sw));
  }
}

// ------------------------------------------------------------------ globals

// A positive duration of at most `most` seconds ("10us", "2 ms", "1.5s", or plain seconds).
double read_duration(const std::string& text, const std::string& field, double most, const std::string& alternative) {
  const auto bound = [&] {
    return config_error(field, "= " + quote(text) + " must be positive and at most " +
                                   std::to_string(static_cast<int>(most)) + " s" + alternative);
  };
  const auto first = text.find_first_not_of(" \t");
  if (first != std::string::npos && text[first] == '-') throw bound();  // negative, not malformed
  double secs = 0;
  try {
    secs = parse_duration(text);
  } catch (const std::invalid_argument& e) {
    throw config_error(field, "= " + quote(text) + ": " + e.what() + alternative);
  }
  if (!(secs > 0) || secs > most) throw bound();
  return secs;
}

void read_timing(const YAML::Node& n, Timing& t) {
  if (!n.IsMap()) throw config_error("timing", "must be a map (e.g. timing: {reps: 20})");
  if (n["arrival"])  // settings vary only sweep keys, and one experiment compares the patterns
    throw config_error("timing.arrival", "is not a timing key: arrival is a sweep key, so that each setting can have its own "
                                         "(write arrival: {pattern: linear, max_delay: 200us} at the top level or in a setting)");
  check_keys(n, "timing.", timing_keys());
  if (const auto v = n["sync"]) t.sync = as_enum<SyncMethod>(v, "timing.sync");
  if (const auto v = n["clock"]) t.clock = as_enum<ClockKind>(v, "timing.clock");
  if (const auto v = n["warmup"]) t.warmup = static_cast<int>(as_int(v, "timing.warmup", 0, 1000000));
  if (const auto v = n["reps"]) t.reps = static_cast<int>(as_int(v, "timing.reps", 1, 10000000));
  if (const auto v = n["tukey_k"]) {
    t.tukey_k = as_double(v, "timing.tukey_k");
    if (!(t.tukey_k > 0)) throw config_error("timing.tukey_k", "= " + v.Scalar() + " must be positive (3 is usual)");
  }
  if (const auto v = n["window"]) {
    const std::string s = as_string(v, "timing.window");
    if (s == "auto") t.window.reset();
    else t.window = read_duration(s, "timing.window", 3600, " (or auto)");
  }
  if (const auto v = n["budget"]) t.budget = read_duration(as_string(v, "timing.budget"), "timing.budget", 3600, "");
  if (const auto v = n["residual_bound"])
    t.residual_bound = read_duration(as_string(v, "timing.residual_bound"), "timing.residual_bound", 1, "");
  if (const auto v = n["clock_sync"]) t.clock_sync = as_enum<ClockSyncKind>(v, "timing.clock_sync");
  if (const auto v = n["sync_fit_points"]) t.sync_fit_points = static_cast<int>(as_int(v, "timing.sync_fit_points", 1, 10000));
  if (const auto v = n["sync_exchanges"]) t.sync_exchanges = static_cast<int>(as_int(v, "timing.sync_exchanges", 1, 10000));
  if (const auto v = n["resync"]) t.resync = as_enum<Resync>(v, "timing.resync");
  if (const auto v = n["agree_every"]) t.agree_every = static_cast<int>(as_int(v, "timing.agree_every", 1, 10000000));
  if (const auto v = n["phases"]) t.phases = as_bool(v, "timing.phases");
  if (const auto v = n["overlap"]) t.overlap = as_bool(v, "timing.overlap");
}

void check_experiment_name(const std::string& s) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
      }))
    throw config_error("experiment", "= " + quote(s) + " must be a non-empty name of letters, digits, '-', '_' or '.'");
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
  } catch (const YAML::DeepRecursion& e) {  // yaml-cpp stops at 500 levels, with the message "bad file"
    throw ConfigError("config error: " + source + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": " + kTooDeep);
  } catch (const YAML::Exception& e) {
    throw ConfigError("config error: " + source + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": " + excerpt(e.msg, 100));
  }
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  check_document(root, source);
  if (!root.IsMap()) throw ConfigError("config error: " + source + ": the top level must be a map of keys");
  for (const auto& o : overrides) apply_override(root, o);

  std::vector<std::string> top_keys = global_keys();
  top_keys.insert(top_keys.end(), all_sweep_keys().begin(), all_sweep_keys().end());
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
      throw config_error("validation_max_bytes", "= " + quote(n.Scalar()) + ": " + e.what());
    }
  }
  if (const auto n = root["binding"]) c.binding = as_enum<Binding>(n, "binding");
  if (const auto n = root["timing"]) read_timing(n, c.timing);
  c.effective = to_json(root);

  if (root["settings"]) {
    read_settings(root, c);
  } else {
    Sweep top = read_sweep(SweepSource(root, YAML::Node(), ""), "");
    top.arrival = read_arrival(root, YAML::Node(), "", c.timing, top.arrival_field);
    top.overrides = nlohmann::json::object();
    for (const auto& kv : root)
      if (is_sweep_key(kv.first.as<std::string>())) top.overrides[kv.first.as<std::string>()] = to_json(kv.second);
    c.sweeps.push_back(std::move(top));
  }
  check_unused_keys(c, root);
  return c;
}

namespace {

// The global fields with their effective values, defaults included (for --get).
nlohmann::json with_defaults(const Config& c) {
  const Timing& t = c.timing;
  nlohmann::json j = {{"experiment", c.experiment}, {"description", c.description}, {"launches", c.launches},
                      {"validation", c.validation}, {"binding", to_string(c.binding)},
                      {"timing", {{"sync", to_string(t.sync)}, {"clock", to_string(t.clock)}, {"warmup", t.warmup},
                                  {"reps", t.reps}, {"tukey_k", t.tukey_k}, {"window", "auto"},
                                  {"sync_fit_points", t.sync_fit_points}, {"sync_exchanges", t.sync_exchanges},
                                  {"resync", to_string(t.resync)}, {"agree_every", t.agree_every},
                                  {"clock_sync", to_string(t.clock_sync)}, {"budget", t.budget},
                                  {"residual_bound", t.residual_bound}, {"phases", t.phases},
                                  {"overlap", t.overlap}}}};
  for (const auto& [key, value] : c.effective.items()) {
    if (key == "timing" && value.is_object()) j["timing"].update(value);
    else j[key] = value;
  }
  return j;
}

}  // namespace

std::string config_value(const Config& c, const std::string& path) {
  const auto elems = parse_path(path, "--get");
  std::vector<std::string> top = global_keys();
  top.insert(top.end(), all_sweep_keys().begin(), all_sweep_keys().end());
  if (!contains(top, elems.front().key)) throw unknown_key("--get ", elems.front().key, top);
  if (elems.front().key == "timing" && elems.size() > 1 && !contains(timing_keys(), elems[1].key))
    throw unknown_key("--get timing.", elems[1].key, timing_keys());
  const nlohmann::json all = with_defaults(c);
  const nlohmann::json* cur = &all;
  for (const auto& e : elems) {
    if (e.index >= 0) {
      if (!cur->is_array() || static_cast<std::size_t>(e.index) >= cur->size())
        throw config_error("--get " + excerpt(path), "has no entry [" + std::to_string(e.index) + "] (the value is " +
                                                         excerpt(cur->dump()) + ")");
      cur = &(*cur)[static_cast<std::size_t>(e.index)];
    } else {
      if (!cur->is_object() || !cur->contains(e.key)) return "";  // a known key the config leaves out
      cur = &(*cur)[e.key];
    }
  }
  return cur->is_string() ? cur->get<std::string>() : cur->dump();
}

}  // namespace collbench
