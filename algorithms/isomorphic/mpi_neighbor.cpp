// mpi-neighbor: MPI_Neighbor_alltoall / _allgather / _alltoallw on a distributed-graph
// communicator built with MPI_Dist_graph_create_adjacent. Details: docs/algorithms/mpi-neighbor.md.
//
// Source: seed 004 §1, §4 (the MPI 3.1 neighbourhood collectives the paper compares against,
//   Figs. 2, 3, 5, 8); MPI-3.1 §7.5.4, §7.6. sources[i] = R ⊖ C^i, destinations[i] = R ⊕ C^i in
//   neighbourhood order, no weights, reorder = 0: the adjacent constructor keeps this order, so
//   with a library that pairs repeated edges in order (MPI-4.1 §8.6) the buffers have exactly
//   the isomorphic semantics and the call is the plain one. MPICH 4.0.x pairs repeated edges in
//   reverse: then the receive side is permuted (MPI_Neighbor_alltoallv), see
//   neighbor_collective.hpp.
// Plan and executor: this file (the graph) and neighbor_collective.cpp (order probe, call).
// Cost: library-defined; modelled as s direct messages, s alpha + sum_i m_i beta.
// Cases: every neighbourhood and torus. Rejects: environments without distributed graphs
//   (Capabilities::dist_graph false, e.g. SimGrid SMPI).
// Errata: none (the paper's pseudocode does not cover the baselines).
// This is also the reference every isomorphic algorithm is validated against (tests/mpi/iso_check.cpp).
#include "neighbor_collective.hpp"
#include "scheduled_algorithm.hpp"

namespace collrepro::iso {

namespace {

MPI_Comm create_adjacent(MPI_Comm parent, const IsoComm& comm) {
  const auto& in = comm.sources();
  const auto& out = comm.targets();
  MPI_Comm g = MPI_COMM_NULL;
  check(MPI_Dist_graph_create_adjacent(parent, static_cast<int>(in.size()), in.data(), MPI_UNWEIGHTED,
                                       static_cast<int>(out.size()), out.data(), MPI_UNWEIGHTED, MPI_INFO_NULL,
                                       /*reorder=*/0, &g),
        "MPI_Dist_graph_create_adjacent");
  return g;
}

}  // namespace

Comm dist_graph_adjacent(const IsoComm& comm) { return checked_dist_graph(comm, create_adjacent); }

namespace {

NeighborGraph adjacent(const IsoComm& comm) { return describe_graph(dist_graph_adjacent(comm), comm); }

COLLREPRO_REGISTER_ISO(NeighborAlgorithm, "mpi-neighbor", Kind::Native,
                       neighbor_call_sources("seed 004 §4 baseline; MPI-3.1 §7.6 on MPI_Dist_graph_create_adjacent"),
                       neighbor_call_costs(), adjacent, adjacent);

}  // namespace
}  // namespace collrepro::iso
