// One sweep of an experiment: the keys every family shares (collective, algorithms, sizes,
// placements, arrival, call) and the family's own typed keys (FamilySweep), parsed by the family itself.
//
// A configuration file holds one sweep at its top level, or `settings`: a list of named
// sweeps, each overriding some keys of the top level (seed 001's settings 1-8 in one file).
// SweepSource is how a family reads a key of one sweep: the setting's own value if it has
// one, else the top level's, with the config path of whichever was used.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collrepro/registry.hpp"
#include "config/arrival.hpp"
#include "config/config_yaml.hpp"

namespace collbench {

class SweepSource {
 public:
  struct Field {
    YAML::Node node;
    std::string path;  // "groups" or "settings[2].groups"
  };
  // setting: the setting's map (undefined for the unnamed top-level sweep); prefix "settings[2].".
  SweepSource(YAML::Node top, YAML::Node setting, std::string prefix);
  std::optional<Field> get(const std::string& key) const;
  bool own(const std::string& key) const;  // given by the setting itself (or the top-level sweep)
  const std::string& prefix() const { return prefix_; }

 private:
  YAML::Node top_, setting_;
  std::string prefix_;
};

// A family's own sweep keys, typed (InterSweep, IsoSweep, ...).
class FamilySweep {
 public:
  virtual ~FamilySweep() = default;
};

// What the configuration reads through a family: its name, the collectives it handles, and its
// own sweep keys with their parser. The family's adapter derives from it (FamilyAdapter,
// families/family.hpp), whose registration adds it here too, so that the configuration finds a
// collective's family without including the adapters.
class SweepFamily {
 public:
  virtual ~SweepFamily() = default;
  virtual std::string name() const = 0;  // "inter-group": the CSV family column
  virtual bool handles(collrepro::Collective c) const = 0;
  // The sweep keys this family reads besides the common ones, and those that collective c uses
  // (others given explicitly are an error).
  virtual std::vector<std::string> sweep_keys() const = 0;
  virtual std::vector<std::string> sweep_keys(collrepro::Collective c) const = 0;
  // Pure: reads this family's keys of one sweep; throws ConfigError naming the field.
  virtual std::shared_ptr<const FamilySweep> parse_sweep(const SweepSource& source, collrepro::Collective c) const = 0;
};

// Every registered family, ordered by name (filled before main() by FamilyRegistration,
// immutable afterwards), and the family of collective c (nullptr: none).
std::span<const SweepFamily* const> sweep_families();
const SweepFamily* sweep_family_of(collrepro::Collective c);
// Adds a family in name order (FamilyRegistration, families/family.hpp).
void add_sweep_family(const SweepFamily& family);

struct Sweep {
  std::string name;          // setting name; empty for the unnamed top-level sweep
  std::string field_prefix;  // "" or "settings[2]."
  collrepro::Collective collective{};
  std::string collective_field;
  const SweepFamily* family = nullptr;  // the collective's (its adapter: family_of(collective))
  Names algorithms;          // {"all"} or names
  std::vector<std::size_t> sizes;
  std::string sizes_field;
  Names placements;
  Arrival arrival;            // how late each rank starts (timing/arrival.hpp); none by default
  std::string arrival_field;  // "arrival.pattern" or "settings[2].arrival.pattern" (messages)
  // The call forms (contract enum call), in the order given; default: blocking only.
  std::vector<collrepro::CallForm> calls{collrepro::CallForm::Blocking};
  Names calls_field;
  std::shared_ptr<const FamilySweep> fields;  // the family's keys
  nlohmann::json overrides;                   // the setting's own keys (for the metadata)

  // The family's typed keys; F must be the family's FamilySweep type.
  template <class F>
  const F& family_fields() const {
    return dynamic_cast<const F&>(*fields);
  }
};

// The keys every sweep has, whatever its family.
const std::vector<std::string>& common_sweep_keys();

}  // namespace collbench
