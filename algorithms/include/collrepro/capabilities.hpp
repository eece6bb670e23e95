// What the MPI library under us can do, decided at run time.
//
// The same source runs on Open MPI, MPICH and SimGrid's SMPI. SMPI lacks a few calls
// (intercommunicators, distributed graph topologies, MPI_Topo_test) and runs on a simulated
// clock. Rather than compiling those differences in, the program asks the library once,
// after MPI_Init, and every family's supports() and the driver read the answer.
#pragma once

#include <string>


namespace collrepro {

struct Capabilities {
  bool intercomm = true;         // MPI_Intercomm_create and intercommunicator collectives
  bool dist_graph = true;        // MPI_Dist_graph_create(_adjacent) and MPI_Neighbor_*
  bool topo_test = true;         // MPI_Topo_test
  bool simulated_clock = false;  // MPI_Wtime is a simulated clock (every call is an event)
  std::string reason;            // why something is missing ("" when nothing is)

  // From the library identity (MPI_Get_library_version's text). Pure, for tests.
  static Capabilities from_identity(const std::string& library_version);
};

// The capabilities of the running MPI library, probed on first use (MPI must be initialized).
const Capabilities& mpi_capabilities();

}  // namespace collrepro
