#include "settings.hpp"

#include <cstdlib>

namespace collrepro::pmpi {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool forced_name_known(const std::string& name) {
  if (name == "native") return true;
  for (Collective c : all_collectives()) {
    const Algorithm* a = Registry::global().find(c, name);
    if (a && a->info().kind != Kind::Native) return true;
  }
  return false;
}

Settings& current() {
  static Settings s = [] {
    Settings off;
    off.enabled = false;  // until MPI_Init has read the environment
    return off;
  }();
  return s;
}

}  // namespace

RulesFile read_rules_file() {
  RulesFile f;
  f.path = env("COLLREPRO_PMPI_RULES");
  if (f.path.empty()) return f;
  try {
    f.text = Rules::read_file(f.path);
    f.state = RulesFile::State::Read;
  } catch (const RulesError& e) {
    f.text = e.what();
    f.state = RulesFile::State::Failed;
  }
  return f;
}

Settings settings_from_environment(const RulesFile& rules) {
  Settings s;
  const std::string disable = env("COLLREPRO_PMPI_DISABLE");
  s.enabled = disable.empty() || disable == "0";
  s.forced = env("COLLREPRO_PMPI_FORCE");
  s.report = env("COLLREPRO_PMPI_REPORT");
  if (s.report == "1") s.report = "-";
  if (s.report == "0") s.report.clear();
  if (!s.forced.empty() && !forced_name_known(s.forced)) {
    s.error = "COLLREPRO_PMPI_FORCE=" + excerpt(s.forced) +
              ": no such algorithm (collbench --list-algorithms lists them; 'native' is the MPI library's call)";
  } else if (rules.state == RulesFile::State::Failed) {
    s.error = "COLLREPRO_PMPI_RULES: " + rules.text;
  } else if (rules.state == RulesFile::State::Read) {
    try {
      s.rules = Rules::parse(rules.text);
    } catch (const RulesError& e) {
      s.error = "COLLREPRO_PMPI_RULES: " + rules.path + ": " + e.what();
    }
  }
  if (!s.error.empty()) {
    s.enabled = false;
    s.rules.reset();
  }
  const std::string delay = env("COLLREPRO_PMPI_DELAY");
  try {
    s.delay = parse_delay(delay);
  } catch (const DelayError& e) {
    s.delay_error = "COLLREPRO_PMPI_DELAY='" + excerpt(delay) + "': " + e.what() +
                    " (want CALL:SIZE:+N% or CALL:SIZE:+Nms[,...], e.g. allgather:>=64KiB:+10%; fix it or unset the variable)";
  }
  for (const DelayRule& r : s.delay) s.delayed_calls |= 1u << static_cast<unsigned>(r.call);
  // Delay mode alone slows the MPI library's calls; it never turns algorithm replacement on.
  if (!s.delay.empty() && s.forced.empty() && rules.state == RulesFile::State::None) s.enabled = false;
  return s;
}

Settings settings_from_environment() { return settings_from_environment(read_rules_file()); }

const Settings& settings() { return current(); }
void install_settings(Settings s) { current() = std::move(s); }

}  // namespace collrepro::pmpi
