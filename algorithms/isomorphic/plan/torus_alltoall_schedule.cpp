// torus: the message-combining, zero-copy isomorphic all-to-all on a one-ported torus.
//
// Source: seed 004 (Träff et al. 2016), §3.1 (Proposition 1) and §3.3 Algorithm 1.
// Cost: D alpha + V m beta, with D = sum_j [max_i max(c^i_j, 0) + max_i max(-c^i_j, 0)] steps
//   and V = sum_i ||C^i|| block-hops (all-to-allw: sum_i ||C^i|| m_i); round- and
//   volume-optimal in the one-ported torus model. Moore(d, r): D = 2rd, V = d r (r+1) (2r+1)^(d-1).
// Cases: every neighbourhood. Dimension j is routed in its positive phase (steps h = 0..H+-1
//   send to R + e_j: every block with c^i_j > h moves one hop) and then its negative phase; all
//   moving blocks of a step form one message. Blocks alternate between recvbuf and interbuf
//   (alternating_buffers.hpp) and end in recvbuf[i] at R ⊕ C^i. Zero offsets are delivered by
//   the local step; repeated offsets are separate blocks; tiny tori (p_j = 1, 2) and |c| >= p_j
//   need nothing special because every process runs the same steps.
// Errata (seed 004 §3.3 Algorithm 1, §3.1; docs/errata.md): the printed `firstround[i] == j`
//   must read "first hop of block i" (FirstHop::Corrected; unit test isoAlgorithm1Erratum.*);
//   the printed D formula sums over j = 0..s-1 and takes one max over the positive and
//   negative parts together: it is sum over j = 0..d-1 of two separate maxima (unit test
//   isoCounts.PrintedDFormulaUndercountsTheRounds); the printed `else if` is an `else`.
#include <algorithm>

#include "alternating_buffers.hpp"

namespace collrepro::iso {
namespace {

std::vector<int> hops(const Neighborhood& n) {
  std::vector<int> h;
  for (const Offset& c : n.offsets()) h.push_back(norm1(c));
  return h;
}

}  // namespace

Schedule torus_alltoall_schedule(const Neighborhood& n, FirstHop rule) {
  Schedule s = alltoall_schedule_frame(n);
  AlternatingBuffers blocks(n, hops(n), rule);
  for (int j = 0; j < n.dims(); ++j)
    for (int sign : {+1, -1}) {
      int phase_steps = 0;
      for (const Offset& c : n.offsets()) phase_steps = std::max(phase_steps, sign * c[static_cast<std::size_t>(j)]);
      for (int h = 0; h < phase_steps; ++h) {
        Step step{axis_offset(n.dims(), j, sign), {}, {}};
        for (std::size_t i = 0; i < n.size(); ++i)
          if (sign * n[i][static_cast<std::size_t>(j)] > h) blocks.move(i, step, j);
        s.steps.push_back(std::move(step));
      }
    }
  return s;
}

}  // namespace collrepro::iso
