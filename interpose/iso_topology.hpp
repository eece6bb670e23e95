// Is a communicator's topology an isomorphic neighbourhood? Decided once per communicator
// (collective: the first neighbourhood call), then cached with its plans.
//
// - Cartesian: every dimension of size >= 3. Neighbours, in MPI's order, are -e_0, +e_0, -e_1,
//   +e_1, ...: the neighbourhood list:(-e_0),(+e_0),... Smaller dimensions make one process two
//   neighbours, and which of its blocks lands where is then the MPI library's business
//   (libraries differ): those go to the native call. A dimension that is not periodic has
//   MPI_PROC_NULL neighbours at its ends: the algorithm runs on the torus of the same
//   dimensions (a periodic twin, reorder = 0), and the blocks that arrive across an end are
//   received into scratch and dropped (`discard`), so the user's blocks stay untouched, as MPI
//   leaves them. The blocks sent across an end are the only extra traffic.
// - Distributed graph: the same relative offsets (mod the size, as a 1-d torus) on every
//   process, for destinations and sources alike, no offset repeated. Checked with two
//   MPI_Allreduce calls; a one-dimensional periodic Cartesian communicator (reorder = 0)
//   then carries the IsoComm.
// MPI delivers the block that a process sends towards offset c into its neighbour's receive
// block for offset -c; the isomorphic algorithms deliver it into block index of c.
// recv_position maps one to the other.
#pragma once

#include <mpi.h>

#include <optional>
#include <vector>

#include "collrepro/isomorphic.hpp"

namespace collrepro::pmpi {

struct IsoTopology {
  iso::Neighborhood neighborhood;  // destination offsets, in MPI's neighbour order
  std::vector<int> dims;
  std::vector<int> recv_position;  // algorithm receive block k is MPI's receive block recv_position[k]
  std::vector<bool> discard;       // per MPI receive block: its source is MPI_PROC_NULL
  iso::IsoComm comm;
};

// Collective over `comm`; nullopt when the topology is not an isomorphic neighbourhood.
std::optional<IsoTopology> detect_isomorphic(MPI_Comm comm);

// Pure: for destination offsets `dest` and source offsets `src` of a 1-d torus of n processes,
// the receive position of each destination offset's block (the source offset -dest[k]), or
// nullopt when the lists are not a pairing (different lengths, repeated offsets, no partner).
std::optional<std::vector<int>> pair_ring_offsets(const std::vector<int>& dest, const std::vector<int>& src, int n);

}  // namespace collrepro::pmpi
