// The experiment configuration: a YAML file (schema in bench/README.md) plus --set
// overrides, checked completely before any measurement.
//
// The file has global fields (experiment, timing, validation, launches, binding) and sweep
// fields: the common ones (collective, algorithms, sizes, placements, arrival; sweep.hpp) and those of
// the collective's family (groups, blocks, neighborhoods, ...: parsed by the family,
// SweepFamily in sweep.hpp). Optionally `settings`: named sweeps overriding some sweep fields of the top level.
//
// Parsing is pure (no MPI) and deterministic, so every rank parses the same text to the
// same Config. Errors are ConfigError("config error: <field> <problem> (<fix>)").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/enums.hpp"
#include "config/sweep.hpp"

namespace collbench {

struct Timing {
  SyncMethod sync = SyncMethod::Barrier;
  ClockKind clock = ClockKind::MpiWtime;
  int warmup = 2;
  int reps = 20;
  double tukey_k = 3;
  std::optional<double> window;  // seconds; nullopt = auto (from the warm-up times)
  int sync_fit_points = 8;       // window: fit points of the offset/drift regression per sync
  int sync_exchanges = 10;       // ping-pongs per fit point (the one with the least round trip counts)
  Resync resync = Resync::Bound; // when to refresh the clock model
  int agree_every = 16;          // repetitions between collective interrupt checks
  ClockSyncKind clock_sync = ClockSyncKind::Hierarchical;  // the clock synchronization algorithm
  double budget = 1.0;           // round-time: seconds per point (repetitions stop when it is spent)
  double residual_bound = 10e-6; // resync bound: a certain |clock offset| beyond it triggers a resync
  bool phases = false;           // per-phase timing: the phases file (bench/README.md, "Phases")
  bool overlap = true;           // nonblocking points: the overlap measurement (timing/measure.hpp)
};

struct Config {
  std::string experiment;
  std::string description;
  int launches = 1;
  bool validation = true;
  // Validate only points whose msg_bytes is at most this (unset: every point). For runs whose
  // large buffers cannot hold real data, e.g. SimGrid's shared-malloc folding (bench/sim).
  std::optional<std::size_t> validation_max_bytes;
  Binding binding = Binding::None;
  Timing timing;
  std::vector<Sweep> sweeps;     // one per setting (one unnamed when there are none)
  bool has_settings = false;
  nlohmann::json effective;      // the configuration after --set, as JSON (metadata)

  // Stable fingerprint of everything that defines the points and their measurement
  // (not description and launches): a resumed run must have the same one.
  std::string fingerprint() const;
};

// Parses YAML text with `overrides` ("key=value", key a dotted path like timing.reps or
// groups.ratios[1]; value YAML). `source` names the text in messages (the file name).
Config parse_config(const std::string& yaml_text, const std::vector<std::string>& overrides,
                    const std::string& source = "config");

// The effective value at a dotted path as text (for `collbench CONFIG --get launches`); a key
// the configuration does not know is a ConfigError.
std::string config_value(const Config& c, const std::string& path);

}  // namespace collbench
