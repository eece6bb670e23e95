// The per-block double buffering of Algorithm 1 (seed 004 §3.3); see alternating_buffers.hpp.
#include "alternating_buffers.hpp"

namespace collrepro::iso {

AlternatingBuffers::AlternatingBuffers(const Neighborhood& n, std::vector<int> hops, FirstHop rule)
    : hops_(std::move(hops)), started_(n.size(), false), first_dim_(n.size(), -1), rule_(rule) {
  for (std::size_t i = 0; i < n.size(); ++i)
    for (int j = n.dims() - 1; j >= 0; --j)
      if (n[i][static_cast<std::size_t>(j)] != 0) first_dim_[i] = j;
}

void AlternatingBuffers::move(std::size_t i, Step& step, int dim) {
  const int slot = static_cast<int>(i);
  const bool even = hops_[i] % 2 == 0;
  const bool from_send = rule_ == FirstHop::Corrected ? !started_[i] : first_dim_[i] == dim;
  step.send.push_back({from_send ? Buf::Send : even ? Buf::Recv : Buf::Inter, slot});
  step.recv.push_back({even ? Buf::Inter : Buf::Recv, slot});
  started_[i] = true;
  --hops_[i];
}

Schedule alltoall_schedule_frame(const Neighborhood& n) {
  Schedule s;
  s.pattern = Pattern::Alltoall;
  s.blocks = n.size();
  s.local.offset.assign(static_cast<std::size_t>(n.dims()), 0);
  for (std::size_t i = 0; i < n.size(); ++i) {
    s.inter_block.push_back(static_cast<int>(i));
    if (is_zero(n[i])) {
      s.local.send.push_back({Buf::Send, static_cast<int>(i)});
      s.local.recv.push_back({Buf::Recv, static_cast<int>(i)});
    }
  }
  return s;
}

}  // namespace collrepro::iso
