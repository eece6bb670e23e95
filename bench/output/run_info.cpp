#include "output/run_info.hpp"

#include "build_info.hpp"  // generated at build time: kBuildGitRevision, ...

#include <dlfcn.h>
#include <mpi.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <ctime>
#include <memory>
#include <regex>
#include <string_view>

#include "collrepro/contract_enums.hpp"
#include "output/fileio.hpp"

namespace collbench {

MpiLibrary parse_mpi_library(const std::string& text) {
  MpiLibrary m;
  m.full = text;
  m.library = text.substr(0, text.find('\n'));
  using collrepro::contract::MpiImpl;
  MpiImpl impl = MpiImpl::Other;  // enums.mpi_impl of the contract
  if (text.find("SMPI") != std::string::npos) impl = MpiImpl::Smpi;  // SimGrid: "SMPI Version 3.32. ..."
  else if (text.find("Open MPI") != std::string::npos) impl = MpiImpl::Openmpi;
  else if (text.find("Intel(R) MPI") != std::string::npos) impl = MpiImpl::Intel;
  else if (text.find("MVAPICH") != std::string::npos) impl = MpiImpl::Mvapich;
  else if (text.find("MPICH") != std::string::npos) impl = MpiImpl::Mpich;
  m.impl = collrepro::contract::name(impl);
  std::smatch match;
  static const std::regex version(R"((\d+\.\d+(\.\d+)?[a-z0-9]*))");
  std::string head = text;
  if (m.impl == "mpich") {
    const auto at = text.find("Version:");
    if (at != std::string::npos) head = text.substr(at);
  }
  m.version = std::regex_search(head, match, version) ? match[1].str() : "unknown";
  return m;
}

MpiLibrary mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<std::size_t>(len));
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return parse_mpi_library(s);
}

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const auto secs = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

nlohmann::json build_provenance() {
  return {{"git_revision", kBuildGitRevision},
          {"git_dirty", kBuildGitDirty},
          {"compiler", kBuildCompiler},
          {"build_type", kBuildType}};
}

namespace {
std::vector<MetadataHook>& hooks() {
  static std::vector<MetadataHook> list;
  return list;
}
}  // namespace

bool add_metadata_hook(MetadataHook hook) {
  hooks().push_back(hook);
  return true;
}

namespace {
// The MPI installation of this run (metadata key `mpi_installation`): `library_file`, the libmpi
// the dynamic loader picked (the file that defines MPI_Get_library_version), and the installation
// record the launcher passes in COLLREPRO_MPI_INSTALLATION (a JSON object: name, kind, version,
// prefix, origin, configure; python/collrepro/installations). Null when neither is known.
nlohmann::json mpi_installation_metadata() {
  nlohmann::json j = nlohmann::json::object();
  if (const char* text = std::getenv("COLLREPRO_MPI_INSTALLATION")) {
    const std::string_view t(text);
    constexpr std::size_t most = 64 * 1024;  // an installation record is a few hundred bytes
    if (t.size() > most || json_depth(t) > kMaxJsonDepth) {
      j["error"] = "COLLREPRO_MPI_INSTALLATION is over 64 KiB or nests deeper than " + std::to_string(kMaxJsonDepth) +
                   " levels (ignored)";
    } else {
      const auto record = nlohmann::json::parse(t, nullptr, false);
      if (record.is_object()) j = record;
      else j["error"] = "COLLREPRO_MPI_INSTALLATION is not a JSON object";
    }
  }
  Dl_info info{};
  void* symbol = dlsym(RTLD_DEFAULT, "MPI_Get_library_version");
  if (symbol != nullptr && dladdr(symbol, &info) != 0 && info.dli_fname != nullptr) {
    char resolved[PATH_MAX];
    j["library_file"] = realpath(info.dli_fname, resolved) ? std::string(resolved) : std::string(info.dli_fname);
  }
  return {{"mpi_installation", j.empty() ? nlohmann::json(nullptr) : j}};
}
[[maybe_unused]] const bool installation_hook = add_metadata_hook(&mpi_installation_metadata);
}  // namespace

nlohmann::json hooked_metadata() {
  nlohmann::json out = nlohmann::json::object();
  for (MetadataHook hook : hooks()) {
    const nlohmann::json keys = hook();
    for (const auto& [key, value] : keys.items()) out[key] = value;
  }
  return out;
}

}  // namespace collbench
