// What the MPI library under us can do, decided at run time.
//
// The same source runs on Open MPI, MPICH and SimGrid's SMPI. SMPI lacks a few calls
// (intercommunicators, distributed graph topologies, MPI_Topo_test) and runs on a simulated
// clock. Rather than compiling those differences in, the program asks the library once,
// after MPI_Init (probe_capabilities, collective), and passes the answer down: to every
// family's supports(), to the communicators that need it (IsoComm) and into the metadata.
// Nothing reads it from a global.
//
// The identity string decides only what cannot be tried safely (SMPI aborts on the calls it
// lacks). Everything else is tried: an intercommunicator between the two halves of the world,
// a distributed graph communicator of one process, and MPI_Topo_test's label on it (a library
// may return the graph unlabelled; the isomorphic executors then repair the label).
//
// The native call forms (contract enum call) are probed the same way, on that
// intercommunicator: MPI_Iallgather (MPI-3) and the persistent MPI_Allgather_init, where the
// build found one (collrepro/persistent.hpp: MPI-4, or Open MPI 4.1's MPIX_ extension), each
// started twice and checked against the expected bytes; and the persistent sub-collectives
// (Allgather, Allgatherv in place, Bcast) on the world, and the intra family's natives in both
// forms on the world. A missing or failing form is a recorded capability (a skipped point with
// its reason), never a crash.
#pragma once

#include <string>

namespace collrepro {

struct Capabilities {
  bool intercomm = true;         // MPI_Intercomm_create and intercommunicator collectives
  bool dist_graph = true;        // MPI_Dist_graph_create(_adjacent) and MPI_Neighbor_*
  bool topo_test = true;         // MPI_Topo_test
  bool simulated_clock = false;  // MPI_Wtime is a simulated clock (every call is an event)
  bool dist_graph_labelled = true;  // MPI_Topo_test says MPI_DIST_GRAPH for a dist graph communicator
  bool inter_nonblocking = true;  // MPI_Iallgather(v) on an intercommunicator, right result
  bool inter_persistent = true;   // MPI_Allgather(v)_init (or MPIX_) on an intercommunicator, right result
  // The persistent Allgather, Allgatherv (in place) and Bcast on an intracommunicator give the
  // right result at every start (the project's persistent schedules start them on their
  // sub-communicators; without, they post the nonblocking ones at each start instead).
  bool intra_persistent = true;
  // The intra family's natives in the other forms, on the world (the communicator its points
  // use): MPI_Iallgather, MPI_Iallgatherv, MPI_Igather and MPI_Ibcast; the persistent
  // MPI_Allgather_init (not in place), MPI_Allgatherv_init, MPI_Gather_init and MPI_Bcast_init
  // (or MPIX_); each started twice with new data.
  bool intra_nonblocking = true;
  bool intra_native_persistent = true;
  // MPI_Ineighbor_alltoall and the persistent MPI_Neighbor_alltoall_init (or MPIX_) on a
  // distributed-graph ring, each started twice with new data: the native neighbourhood forms.
  bool neighbor_nonblocking = true;
  bool neighbor_persistent = true;
  // The native intercommunicator MPI_Allgather(v) moves non-contiguous datatypes (a struct with
  // a hole) beyond the library's eager size right. From the identity, not tried: where it is
  // wrong the call can crash. MPICH 4.0.2: 'Message truncated', or a silent short message in
  // MPI_Iallgather (found by collrepro-py fuzz, fuzz/known_faults.json). The PMPI library then
  // passes such blocking calls to the MPI library as bytes (interpose/intergroup_calls.cpp).
  bool inter_typed = true;
  std::string calls_reason;       // why a native call form is missing ("" when none is)
  std::string reason;            // why something is missing ("" when nothing is)
  std::string how;               // how each was decided, e.g. "intercomm: probed; ..." (metadata)

  // From the library identity (MPI_Get_library_version's text). Pure, for tests.
  static Capabilities from_identity(const std::string& library_version);
};

// probe_capabilities(world), the MPI side, is declared in collrepro/mpi.hpp.

}  // namespace collrepro
