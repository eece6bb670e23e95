#include "collrepro/capabilities.hpp"

namespace collrepro {

namespace {

// The release in MPICH's identity ("MPICH Version:\t4.0.2\n..."), or "" for another library.
std::string mpich_release(const std::string& identity) {
  const std::string key = "MPICH Version:";
  const auto at = identity.find(key);
  if (at == std::string::npos) return "";
  auto from = identity.find_first_not_of(" \t", at + key.size());
  if (from == std::string::npos) return "";
  return identity.substr(from, identity.find_first_of(" \t\r\n", from) - from);
}

}  // namespace

Capabilities Capabilities::from_identity(const std::string& library_version) {
  Capabilities c;
  const bool smpi = library_version.find("SMPI") != std::string::npos ||
                    library_version.find("SimGrid") != std::string::npos;
  if (smpi) {
    // SimGrid SMPI (3.32): no MPI_Intercomm_create, MPI_Dist_graph_create* and MPI_Topo_test
    // abort with "Not yet implemented"; MPI_Wtime reads the simulated clock.
    c.intercomm = c.dist_graph = c.topo_test = false;
    c.inter_nonblocking = c.inter_persistent = c.intra_persistent = false;
    c.intra_nonblocking = c.intra_native_persistent = false;  // not tried: nothing is under SMPI
    c.neighbor_nonblocking = c.neighbor_persistent = false;
    c.calls_reason = "no intercommunicators";
    c.simulated_clock = true;
    c.reason = "SimGrid SMPI has no intercommunicators, distributed graphs or MPI_Topo_test";
  }
  if (mpich_release(library_version) == "4.0.2") {
    c.inter_typed = false;
    c.calls_reason = "MPICH 4.0.2's intercommunicator MPI_Allgather of a non-contiguous struct type beyond 8 KiB "
                     "fails or is short (fuzz finding)";
  }
  return c;
}

}  // namespace collrepro
