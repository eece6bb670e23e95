// straightforward: the linear isomorphic all-to-all and allgather.
//
// Source: seed 004 (Träff et al. 2016), §3 Listing 4 ("straightforward, isomorphic
//   all-to-all communication in s communication rounds"); the allgather analogue sends the
//   same block every round (the "straightforward" series of Fig. 8).
// Cost: s (alpha + beta m) on a fully connected network; all-to-allw: s alpha + beta sum_i m_i.
// Cases: every neighbourhood. Deadlock-free because of isomorphism: in step i, R sends to
//   R ⊕ C^i, which expects its block i from (R ⊕ C^i) ⊖ C^i = R. A zero offset is a
//   send-receive with oneself; repeated offsets are separate steps.
// Errata: none (self and duplicate offsets are not discussed by the paper; they need nothing).
#include "collrepro/iso_schedule.hpp"

namespace collrepro::iso {

Schedule straightforward_schedule(const Neighborhood& n, Pattern pattern) {
  Schedule s;
  s.pattern = pattern;
  s.blocks = n.size();
  s.local.offset.assign(static_cast<std::size_t>(n.dims()), 0);
  for (std::size_t i = 0; i < n.size(); ++i) {
    const int slot = static_cast<int>(i);
    s.steps.push_back({n[i], {{Buf::Send, pattern == Pattern::Allgather ? 0 : slot}}, {{Buf::Recv, slot}}});
  }
  return s;
}

}  // namespace collrepro::iso
