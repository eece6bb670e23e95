// What the user asked for, read once at MPI_Init from the environment:
//   COLLREPRO_PMPI_DISABLE=1      every call goes to the MPI library unchanged
//   COLLREPRO_PMPI_FORCE=NAME     NAME serves every call of a collective that registers it
//                                 (native: none), when it supports the shape
//   COLLREPRO_PMPI_RULES=FILE     selection rules (rules.hpp); without it, the cheapest
//                                 algorithm by the registry's cost model
//   COLLREPRO_PMPI_REPORT=1|FILE  at MPI_Finalize, the calls each algorithm served (stderr or FILE)
// A malformed setting disables the library with one line on standard error: the application
// then runs on the native calls, never on a guess.
#pragma once

#include <optional>
#include <string>

#include "rules.hpp"

namespace collrepro::pmpi {

struct Settings {
  bool enabled = true;
  std::string forced;            // "" when nothing is forced
  std::optional<Rules> rules;    // from COLLREPRO_PMPI_RULES
  std::string report;            // "" (no report), "-" (stderr) or a file
  std::string error;             // why the library disabled itself ("" when it did not)
};

// Reads the environment; never throws (errors land in Settings::error, enabled = false).
Settings settings_from_environment();

// The settings of this process (set by the MPI_Init intercepts, disabled before).
const Settings& settings();
void install_settings(Settings s);

}  // namespace collrepro::pmpi
