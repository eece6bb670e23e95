// The MPI neighbourhood collectives as baselines of the isomorphic family, shared by
// mpi-neighbor (MPI_Dist_graph_create_adjacent) and mpi-neighbor-remapped
// (MPI_Dist_graph_create). Seed 004 §1, §4: MPI_Neighbor_alltoall, MPI_Neighbor_allgather and
// MPI_Neighbor_alltoallw on a distributed-graph communicator expressing the same pattern:
// process R has out-neighbours R ⊕ C^i and in-neighbours R ⊖ C^i.
//
// Neighbour order. A graph communicator lists its neighbours in its own order (queried with
// MPI_Dist_graph_neighbors): out-edge k carries send block out_block[k], chosen so that its
// target is R ⊕ C^{out_block[k]}.
//
// Repeated edges. When several offsets reach the same process, which of its in-edges receives
// which of our out-edges is the library's business: MPI-4.1 §8.6 pairs the k-th edge to a
// process with the k-th edge from it (Open MPI 4.1 does so), but MPICH 4.0.x pairs them in
// reverse (pmodels/mpich#5777, fixed by #7945), which breaks the isomorphic block order. So
// prepare() probes the pairing once: every out-edge carries its block index through the very
// call that will run, and in-edge l then receives into block in_block[l].
//
// The call. When the graph order is ours, the pairing is natural and the blocks are regular on
// EVERY process (agreed on at prepare time: all processes must call the same collective), it
// is the plain MPI_Neighbor_alltoall/allgather on the user's buffers; otherwise
// MPI_Neighbor_alltoallv/allgatherv with the displacements permuted into the graph's order
// (still no copy). All-to-allw always takes per-neighbour counts and displacements (MPI_Aint).
// The graphs are built with reorder = 0 and no weights.
//
// Call forms: the same call as MPI_Ineighbor_* (nonblocking) or the library's persistent
// MPI_Neighbor_*_init (MPI-4, or Open MPI 4.1's MPIX_: collrepro/persistent.hpp, found at
// configure time), on the same graph and arguments (the pairing probed with the blocking call),
// where the capability probe found the form right; otherwise the form is skipped with the probe's
// finding.
#pragma once

#include <vector>

#include "collrepro/isomorphic.hpp"

namespace collrepro::iso {

struct NeighborGraph {
  Comm comm;
  std::vector<int> out_ranks, in_ranks;  // the graph's neighbour lists, in its order
  std::vector<int> out_block;            // out-edge k carries send block out_block[k]
};

// The two constructors (mpi_neighbor.cpp, mpi_neighbor_remapped.cpp); collective over the
// IsoComm, reorder = 0. measure_setup() times exactly these calls.
Comm dist_graph_adjacent(const IsoComm& comm);  // MPI_Dist_graph_create_adjacent, our order
Comm dist_graph_general(const IsoComm& comm);   // MPI_Dist_graph_create, each rank its out-edges

// One MPI_Dist_graph_create* call on `parent`, a communicator with the IsoComm's ranks.
using GraphConstructor = MPI_Comm (*)(MPI_Comm parent, const IsoComm& comm);

// `construct` on the IsoComm's (Cartesian) communicator, with the result checked: the new
// communicator must test as MPI_DIST_GRAPH. Open MPI 5.0.x returns one that still tests as
// MPI_CART (open-mpi/ompi#14438: the constructor duplicates the parent with its topology and
// adds the graph on top), and its neighbourhood collectives then run the Cartesian code on the
// graph's data (MPI_ERR_ARG, MPI_ERR_INTERN or a crash). On such a library the graph is built
// again on a topology-free communicator with the same ranks (MPI_Comm_split, one colour), which
// the standard makes equivalent; libraries that label the graph correctly never take that path.
// Every process sees the same label (it depends on the library, not on the rank).
Comm checked_dist_graph(const IsoComm& comm, GraphConstructor construct);

// The neighbour lists of `graph` and the send block of each out-edge.
NeighborGraph describe_graph(Comm graph, const IsoComm& comm);

using GraphBuilder = NeighborGraph (*)(const IsoComm&);

// Modelled as s direct messages (the paper infers that the MPI libraries send each block
// directly, §4): s alpha + sum_i m_i beta.
class NeighborAlgorithm : public IsoAlgorithm {
 public:
  NeighborAlgorithm(AlgorithmInfo info, GraphBuilder build) : IsoAlgorithm(std::move(info)), build_(build) {}
  Cost cost(const Shape& shape) const override;
  std::unique_ptr<Runner> prepare(const IsoComm& comm, const Args& args) const override;
  // Nonblocking (MPI_Ineighbor_*) and persistent (MPI_Neighbor_*_init, or MPIX_) forms, where
  // the capability probe found them right (neighbor_nonblocking, neighbor_persistent).
  std::vector<CallForm> calls() const override;
  Support supports_call(CallForm form, const Capabilities& caps) const override;
  std::unique_ptr<Runner> prepare_call(const IsoComm& comm, const Args& args, CallForm form) const override;

 protected:
  Support supports_shape(const Shape& shape, const Capabilities& caps) const override;

 private:
  GraphBuilder build_;
};

// Block positions for a neighbour list `graph` (ranks, in the graph's order), given ours
// (`ranks[i]` = the rank of block i): the k-th occurrence of a rank maps to the k-th index with
// that rank. Throws if the lists are not permutations of each other.
std::vector<int> match_neighbors(const std::vector<int>& graph, const std::vector<int>& ranks);

}  // namespace collrepro::iso
