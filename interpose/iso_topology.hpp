// Is a communicator's topology an isomorphic neighbourhood? Decided once per communicator
// (collective: the first neighbourhood call), then cached with its plans.
//
// - Cartesian: every dimension periodic and of size >= 3. Neighbours, in MPI's order, are
//   -e_0, +e_0, -e_1, +e_1, ...: the neighbourhood list:(-e_0),(+e_0),... Smaller dimensions
//   make one process two neighbours, and which of its blocks lands where is then the MPI
//   library's business (libraries differ): those go to the native call.
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
  iso::IsoComm comm;
};

// Collective over `comm`; nullopt when the topology is not an isomorphic neighbourhood.
std::optional<IsoTopology> detect_isomorphic(MPI_Comm comm);

// Pure: for destination offsets `dest` and source offsets `src` of a 1-d torus of n processes,
// the receive position of each destination offset's block (the source offset -dest[k]), or
// nullopt when the lists are not a pairing (different lengths, repeated offsets, no partner).
std::optional<std::vector<int>> pair_ring_offsets(const std::vector<int>& dest, const std::vector<int>& src, int n);

}  // namespace collrepro::pmpi
