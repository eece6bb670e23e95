#include "sim_info.hpp"

#include "output/run_info.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <simgrid/version.h>

#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include <xbt/config.hpp>

namespace collbench::sim {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// The file of the SimGrid library this process runs on (Debian's, or the fast build of
// `collrepro-py sim simgrid build`, which has the same soname): null where it cannot be told.
nlohmann::json simgrid_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&sg_version_get), &info) == 0 || info.dli_fname == nullptr)
    return nullptr;
  return info.dli_fname;
}

}  // namespace

nlohmann::json metadata() {
  namespace cfg = simgrid::config;
  int major = 0, minor = 0, patch = 0;
  sg_version_get(&major, &minor, &patch);
  const std::string version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  const auto* engine = simgrid::s4u::Engine::get_instance();
  const std::string zone = engine->get_netzone_root()->get_name();
  const std::string platform = env("COLLREPRO_SIM_PLATFORM");
  const std::string model = cfg::get_value<std::string>("network/model");
  // The platform's own caveat (its root zone's collrepro/role property; flat-crossbar.xml: the
  // model-free reference), which figures print beside the platform's name; null where none.
  const char* role = engine->get_netzone_root()->get_property("collrepro/role");

  nlohmann::json config = {
      {"network/model", model},
      {"network/crosstraffic", cfg::get_value<bool>("network/crosstraffic")},
      {"network/bandwidth-factor", cfg::get_value<double>("network/bandwidth-factor")},
      {"network/latency-factor", cfg::get_value<double>("network/latency-factor")},
      {"network/weight-S", cfg::get_value<double>("network/weight-S")},
      {"smpi/simulate-computation", cfg::get_value<bool>("smpi/simulate-computation")},
      {"smpi/coll-selector", cfg::get_value<std::string>("smpi/coll-selector")},
      {"smpi/privatization", cfg::get_value<std::string>("smpi/privatization")},
      {"smpi/shared-malloc", cfg::get_value<std::string>("smpi/shared-malloc")},
      {"smpi/shared-malloc-blocksize", cfg::get_value<double>("smpi/shared-malloc-blocksize")},
      {"smpi/shared-malloc-hugepage", cfg::get_value<std::string>("smpi/shared-malloc-hugepage")},
      {"smpi/auto-shared-malloc-thresh", cfg::get_value<double>("smpi/auto-shared-malloc-thresh")},
      {"smpi/send-is-detached-thresh", cfg::get_value<int>("smpi/send-is-detached-thresh")},
      {"smpi/bw-factor", cfg::get_value<std::string>("smpi/bw-factor")},
      {"smpi/lat-factor", cfg::get_value<std::string>("smpi/lat-factor")},
  };
  nlohmann::json sim = {
      {"simulator", "SimGrid " + version + " (SMPI)"},
      {"simgrid_version", version},
      {"platform_file", platform.empty() ? nlohmann::json(nullptr) : nlohmann::json(platform)},
      // simrun --simgrid: "packaged" (Debian's library) or the fast build's name
      // ("3.32-2+activity-list": no list walk per message, the same simulated times)
      {"simgrid_build", env("COLLREPRO_SIM_SIMGRID").empty() ? nlohmann::json(nullptr)
                                                             : nlohmann::json(env("COLLREPRO_SIM_SIMGRID"))},
      {"simgrid_library", simgrid_library()},
      {"root_zone", zone},
      {"platform_role", role == nullptr ? nlohmann::json(nullptr) : nlohmann::json(role)},
      {"platform_hosts", engine->get_host_count()},
      {"placement", env("COLLREPRO_SIM_PLACEMENT")},  // simrun: "<nodes> nodes x <ppn> ppn, <order> order"
      {"command", env("COLLREPRO_SIM_COMMAND")},      // simrun: the smpirun command line
      {"config", config},
      // simrun --fill-folded: folded buffers were filled like any other (the slow path; the
      // fast path leaves them alone: fold_alloc.cpp). Simulated times are the same either way.
      {"folded_buffers_filled", env("COLLREPRO_SIM_FILL_FOLDED") == "1"},
      // Broadcasts of at least this many bytes run the shim's scatter + ring broadcast
      // (bcast_choice.cpp); SimGrid's cannot count 2 GiB.
      {"wide_bcast_from", wide_bcast_from()},
      // collbench's MPI_Bcast and MPI_Allgather follow MPICH's large-message choices and its
      // MPI_Exscan MPICH's recursive doubling (the shims), or the configured selector decides
      // but MPI_Bcast is Open MPI 4.1.4's whole-message trees (ompi_bcast.hpp) and MPI_Exscan
      // Open MPI's chain (simrun --coll-selector ompi).
      {"mpich_choices", mpich_choices()},
      {"bcast", mpich_choices() ? "mpich: binomial tree below 12 KiB, scatter + ring allgather above"
                                : "ompi: Open MPI 4.1.4's fixed decision, whole messages along its trees"},
      // simrun --type-cost: each side of a non-contiguous message is charged "A,B,UPTO" (A s plus
      // B s per byte up to UPTO bytes: typecost.cpp); null: not charged.
      {"type_cost", env("COLLREPRO_SIM_TYPE_COST").empty() ? nlohmann::json(nullptr)
                                                           : nlohmann::json(env("COLLREPRO_SIM_TYPE_COST"))},
      {"times", "simulated: communication only (smpi/simulate-computation:no); deterministic"},
  };
  return {{"simulated", true},
          {"platform", platform.empty() ? zone : platform},
          {"smpi_version", version},
          {"network_model", model},
          {"simulation", sim}};
}

bool mpich_choices() {
  static const bool on = env("COLLREPRO_SIM_MPICH_CHOICES") != "0";
  return on;
}

}  // namespace collbench::sim

namespace collbench::sim {
namespace {
// Linked only into the simulation variant: its launches' metadata say simulated: true.
[[maybe_unused]] const bool registered = add_metadata_hook(&metadata);
}  // namespace
}  // namespace collbench::sim
