#include "collrepro/capabilities.hpp"

namespace collrepro {

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
  return c;
}

}  // namespace collrepro
