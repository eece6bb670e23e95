// torus-direct: the message-combining, zero-copy isomorphic all-to-all that sends straight
// along each dimension.
//
// Source: seed 004 (Träff et al. 2016), §5 ("torus direct"; Iso_neighbor_alltoall_direct of
//   Figs. 4, 6, 7).
// Cost: R_dir alpha + V_dir m beta, with R_dir = sum_j #{distinct nonzero c^i_j} steps and
//   V_dir = sum_i nnz(C^i) block-messages (all-to-allw: sum_i nnz(C^i) m_i). Assumes direct
//   links along each dimension (a process reaches (0,..,v,..,0) in one message). Moore(d, r):
//   R_dir = 2rd (the same as torus), V_dir = 2rd (2r+1)^(d-1).
// Cases: every neighbourhood. For each dimension j and each distinct nonzero value v of c_j
//   (ascending), one step sends every block with c^i_j = v to R + v e_j, so a block moves once
//   per nonzero coordinate, with the double buffering of Algorithm 1 (alternating_buffers.hpp).
//   Zero offsets go through the local step.
// Errata (docs/errata.md; unit test isoCounts.HeadlineNumbers): the paper's "(2+2)d = 12
//   rounds" for the shells r = 3, 7 (1396 neighbours) contradicts its own definition: every
//   value -7..7 occurs in each dimension, so R_dir = 14 * 3 = 42, the same as the torus
//   algorithm; direct wins on volume (3948 vs 17820 block-hops). Likewise Fig. 4(a)'s "smaller
//   number of rounds" for Moore: both need 2rd.
#include <algorithm>
#include <set>

#include "alternating_buffers.hpp"

namespace collrepro::iso {
namespace {

std::vector<int> hops(const Neighborhood& n) {
  std::vector<int> h;
  for (const Offset& c : n.offsets()) h.push_back(nnz(c));
  return h;
}

std::set<int> nonzero_values(const Neighborhood& n, std::size_t j) {
  std::set<int> values;
  for (const Offset& c : n.offsets())
    if (c[j] != 0) values.insert(c[j]);
  return values;
}

}  // namespace

Schedule direct_alltoall_schedule(const Neighborhood& n) {
  Schedule s = alltoall_schedule_frame(n);
  AlternatingBuffers blocks(n, hops(n), FirstHop::Corrected);
  for (int j = 0; j < n.dims(); ++j) {
    const auto dim = static_cast<std::size_t>(j);
    for (int v : nonzero_values(n, dim)) {
      Step step{axis_offset(n.dims(), j, v), {}, {}};
      for (std::size_t i = 0; i < n.size(); ++i)
        if (n[i][dim] == v) blocks.move(i, step, j);
      s.steps.push_back(std::move(step));
    }
  }
  return s;
}

}  // namespace collrepro::iso
