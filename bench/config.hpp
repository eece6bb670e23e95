// The experiment configuration: a YAML file (schema in bench/README.md) plus --set
// overrides, checked completely before any measurement.
//
// The file has global fields (experiment, timing, validation, launches, binding), sweep
// fields (collective, algorithms, groups, blocks, sizes, ...) and optionally `settings`: a
// list of named sweeps, each overriding some sweep fields of the top level (seed 001's
// settings 1-8 in one file). Without `settings` the top level is the one (unnamed) sweep.
//
// Parsing is pure (no MPI) and deterministic, so every rank parses the same text to the
// same Config. Errors are ConfigError("config error: <field> <problem> (<fix>)").
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collbench {

// One entry of groups.ratios ("25/7": p:q scaled so that p + q = nprocs) or of groups.sizes
// ("6/2": exactly p and q processes).
struct GroupSpec {
  enum class Kind { Ratio, Sizes } kind = Kind::Ratio;
  long a = 1, b = 1;
  std::string text;   // as written
  std::string field;  // "groups.ratios[1]", "settings[2].groups.sizes[0]"
};

// One entry of `blocks`: the kA:kB block-size ratio ("1:1", "4:1", "1:0" = half-duplex A->B).
struct BlockRatio {
  std::size_t ka = 1, kb = 1;
  std::string text;
  std::string field;
};

// A list of strings with the field path of the list, for error messages.
struct Names {
  std::vector<std::string> values;
  std::string field;
  bool explicit_set = false;  // given in this setting or at the top level (not a default)
  bool list = false;          // written as a YAML list (then items are named field[i])

  // The config path of item i: "algorithms[1]", or "algorithms" for a single value.
  std::string at(std::size_t i) const { return list ? field + "[" + std::to_string(i) + "]" : field; }
};

// The fields one sweep (one setting) is made of.
struct Sweep {
  std::string name;  // setting name; empty for the unnamed top-level sweep
  std::string field_prefix;  // "" or "settings[2]."
  std::string collective;
  std::string collective_field;
  Names algorithms;          // {"all"} or names
  std::string pair_mode = "intercomm";
  std::vector<GroupSpec> groups;
  bool groups_explicit = false;
  std::vector<BlockRatio> blocks;
  bool blocks_explicit = false;
  Names distributions;
  Names neighborhoods;
  Names dims;
  std::vector<std::size_t> sizes;
  std::string sizes_field;
  Names placements;
  nlohmann::json overrides;  // the setting's own keys (for the metadata)
};

struct Timing {
  std::string sync = "barrier";   // barrier | double-barrier | window
  std::string clock = "mpi-wtime";  // mpi-wtime | monotonic | tsc
  int warmup = 2;
  int reps = 20;
  double tukey_k = 3;
  std::optional<double> window;  // seconds; nullopt = auto (from the warm-up times)
  int sync_fit_points = 8;       // window: fit points of the offset/drift regression per sync
  int sync_exchanges = 10;       // ping-pongs per fit point (the one with the least round trip counts)
  std::string resync = "point";  // point | launch: when to refresh the clock model
  int agree_every = 16;          // repetitions between collective interrupt checks
};

struct Config {
  std::string experiment;
  std::string description;
  int launches = 1;
  bool validation = true;
  // Validate only points whose msg_bytes is at most this (unset: every point). For runs whose
  // large buffers cannot hold real data, e.g. SimGrid's shared-malloc folding (bench/sim).
  std::optional<std::size_t> validation_max_bytes;
  std::string binding = "none";  // none | core
  Timing timing;
  std::vector<Sweep> sweeps;     // one per setting (one unnamed when there are none)
  bool has_settings = false;
  std::vector<std::string> top_sweep_keys;  // sweep keys given at the top level of the file
  nlohmann::json effective;      // the configuration after --set, as JSON (metadata)

  // Stable fingerprint of everything that defines the points and their measurement
  // (not description and launches): a resumed run must have the same one.
  std::string fingerprint() const;
};

// Parses YAML text with `overrides` ("key=value", key a dotted path like timing.reps or
// groups.ratios[1]; value YAML). `source` names the text in messages (the file name).
Config parse_config(const std::string& yaml_text, const std::vector<std::string>& overrides,
                    const std::string& source = "config");

// The effective value at a dotted path as text (for `collbench CONFIG --get launches`).
std::string config_value(const Config& c, const std::string& path);

}  // namespace collbench
