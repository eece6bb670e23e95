// mpi-neighbor-remapped: MPI_Neighbor_alltoall / _allgather / _alltoallw on a
// distributed-graph communicator built with MPI_Dist_graph_create, with the neighbour order
// queried (MPI_Dist_graph_neighbors) and mapped back to the neighbourhood order.
// Details: docs/algorithms/mpi-neighbor-remapped.md.
//
// Source: seed 004 §4 (Fig. 2: "the performance of the MPI neighborhood collectives sometimes
//   depends on whether the neighborhood was set up with MPI_Dist_graph_create or
//   MPI_Dist_graph_create_adjacent"); MPI-3.1 §7.5.4, §7.6. The paper does not give the
//   constructor's arguments: here every process passes its own s out-edges
//   (n = 1, sources = {R}, destinations R ⊕ C^i), no weights, reorder = 0. The general
//   constructor's neighbour order is implementation-defined (Open MPI 4.1 does reorder): when it
//   differs from ours the call becomes MPI_Neighbor_alltoallv/allgatherv with permuted
//   displacements (neighbor_collective.hpp). Open MPI 4.1's topo/treematch component hangs now
//   and then in repeated MPI_Dist_graph_create calls (open-mpi/ompi#8991): run it with
//   OMPI_MCA_topo=^treematch.
// Plan and executor: this file (the graph) and neighbor_collective.cpp (order probe, call).
// Cost: library-defined; modelled as s direct messages, s alpha + sum_i m_i beta.
// Cases: every neighbourhood and torus. Rejects: environments without distributed graphs.
// Errata: none (the paper's pseudocode does not cover the baselines).
#include "neighbor_collective.hpp"
#include "scheduled_algorithm.hpp"

namespace collrepro::iso {

namespace {

MPI_Comm create_general(MPI_Comm parent, const IsoComm& comm) {
  const int me = comm.rank();
  const int degree = static_cast<int>(comm.targets().size());
  MPI_Comm g = MPI_COMM_NULL;
  check(MPI_Dist_graph_create(parent, 1, &me, &degree, comm.targets().data(), MPI_UNWEIGHTED, MPI_INFO_NULL,
                              /*reorder=*/0, &g),
        "MPI_Dist_graph_create");
  return g;
}

}  // namespace

Comm dist_graph_general(const IsoComm& comm) { return checked_dist_graph(comm, create_general); }

namespace {

NeighborGraph remapped(const IsoComm& comm) { return describe_graph(dist_graph_general(comm), comm); }

COLLREPRO_REGISTER_ISO(NeighborAlgorithm, "mpi-neighbor-remapped", Kind::Native,
                       neighbor_call_sources("seed 004 §4 baseline; MPI-3.1 §7.6 on MPI_Dist_graph_create, "
                                             "order remapped"),
                       neighbor_call_costs(), remapped, remapped);

}  // namespace
}  // namespace collrepro::iso
