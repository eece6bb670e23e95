// What the user asked for, read once at MPI_Init from the environment:
//   COLLREPRO_PMPI_DISABLE=1      every call goes to the MPI library unchanged
//   COLLREPRO_PMPI_FORCE=NAME     NAME serves every call of a collective that registers it
//                                 (native: none), when it supports the shape
//   COLLREPRO_PMPI_RULES=FILE     selection rules (rules.hpp); without it, the cheapest
//                                 algorithm by the registry's cost model
//   COLLREPRO_PMPI_REPORT=1|FILE  at MPI_Finalize, the calls each algorithm served (stderr or FILE)
//   COLLREPRO_PMPI_DELAY=RULES    delay mode (delay.hpp): chosen native calls made slower; alone
//                                 (no FORCE, no RULES) it leaves every call to the MPI library.
//                                 A malformed value ends the job at MPI_Init (exit 2, one line)
// A malformed setting disables the library with one line on standard error: the application
// then runs on the native calls, never on a guess.
//
// The rules file is read once per job: at MPI_Init, world rank 0 reads it (read_rules_file,
// size-checked) and broadcasts what it read (lifecycle.cpp); every rank parses that text from
// memory (settings_from_environment(RulesFile)), so all reach the same settings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collrepro/capabilities.hpp"
#include "delay.hpp"
#include "rules.hpp"

namespace collrepro::pmpi {

struct Settings {
  bool enabled = true;
  std::string forced;            // "" when nothing is forced
  std::optional<Rules> rules;    // from COLLREPRO_PMPI_RULES
  std::string report;            // "" (no report), "-" (stderr) or a file
  std::string error;             // why the library disabled itself ("" when it did not)
  Capabilities caps;             // the MPI library's, probed at MPI_Init (after_init)
  std::vector<DelayRule> delay;  // COLLREPRO_PMPI_DELAY (empty: no delay)
  std::string delay_error;       // why COLLREPRO_PMPI_DELAY is malformed ("" when it is not)
  unsigned delayed_calls = 0;    // bit (1 << DelayCall) set when a rule names the call

  bool delays(DelayCall c) const { return (delayed_calls >> static_cast<unsigned>(c)) & 1u; }
};

// COLLREPRO_PMPI_RULES as one process read it.
struct RulesFile {
  enum class State { None, Read, Failed };
  State state = State::None;  // None: COLLREPRO_PMPI_RULES is unset or empty
  std::string path;           // the variable's value
  std::string text;           // Read: the file's bytes (at most kMaxRulesBytes); Failed: the one-line reason
};

// Reads the file COLLREPRO_PMPI_RULES names (Rules::read_file); never throws.
RulesFile read_rules_file();

// The settings from the environment, with the rules parsed from `rules` (no file is read);
// never throws (errors land in Settings::error, enabled = false).
Settings settings_from_environment(const RulesFile& rules);
// The same, reading the rules file itself (one process).
Settings settings_from_environment();

// The settings of this process (set by the MPI_Init intercepts, disabled before).
const Settings& settings();
void install_settings(Settings s);

}  // namespace collrepro::pmpi
