// The per-block double buffering of seed 004 §3.3 (Algorithm 1), shared by the torus and the
// torus-direct all-to-all schedules. Pure (collplan).
//
// Block i makes hops[i] moves. Before a move with h moves left it sits in the send buffer if it
// has not moved yet, else in recvbuf[i] when h is even and in interbuf[i] when h is odd; it is
// received into interbuf[i] when h is even and into recvbuf[i] when h is odd. The last move
// (h = 1) therefore lands in recvbuf[i], and within one move the block is read from one buffer
// and written to the other, so no step reads and writes the same memory (MPI_Sendrecv's rule).
//
// ERRATUM (seed 004 §3.3; docs/errata.md): Algorithm 1 as printed sends from sendbuf when
// `firstround[i] == j`, i.e. on EVERY hop of the block's first nonzero dimension; that re-sends the
// process's own block instead of forwarding the one just received whenever |c^i_j| >= 2 there. The
// correct test is "block i has not moved yet". FirstHop::LiteralFirstround reproduces the printed
// reading for the regression test only (unit.isoAlgorithm1Erratum.*).
#pragma once

#include <vector>

#include "collrepro/iso_schedule.hpp"

namespace collrepro::iso {

class AlternatingBuffers {
 public:
  AlternatingBuffers(const Neighborhood& n, std::vector<int> hops, FirstHop rule);
  // Appends block i's next move to `step`; `dim` is the dimension being routed.
  void move(std::size_t i, Step& step, int dim);

 private:
  std::vector<int> hops_;       // moves left
  std::vector<bool> started_;   // moved at least once
  std::vector<int> first_dim_;  // the paper's firstround[i]: first j with c^i_j != 0
  FirstHop rule_;
};

// An empty all-to-all schedule for n: interbuf mirrors recvbuf slot by slot, and the local
// step delivers the zero offsets (sendbuf[i] -> recvbuf[i]), which need no network.
Schedule alltoall_schedule_frame(const Neighborhood& n);

}  // namespace collrepro::iso
