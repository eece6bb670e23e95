// Cost-model helpers shared by the inter-group algorithms (alpha-beta model: a message of
// k bytes costs t_s + k t_w; logs are base 2, rounded up, as round counts).
#pragma once

#include <algorithm>
#include <cstddef>

#include "collrepro/intergroup.hpp"

namespace collrepro::inter {

inline double log2_rounds(std::size_t n) {
  double r = 0;
  for (std::size_t v = 1; v < n; v *= 2) ++r;
  return r;
}

inline double bytes(std::size_t n) { return static_cast<double>(n); }

// The half-duplex Allgather algorithms' shape check (halfduplex-fc, halfduplex-fc-minvol).
inline Support half_duplex_equal_blocks(const Shape& s) {
  if (!s.half_duplex())
    return Support::no("half-duplex only: one group must send nothing (set kb = 0 or ka = 0); "
                       "use fullduplex-allgather for two-way exchanges");
  if (!s.uniform_blocks()) return Support::no("Allgather needs equal blocks in each group");
  return Support::yes();
}

// A half-duplex shape seen from its direction: p senders, q receivers, k bytes per block.
struct HalfDuplexSides {
  std::size_t p, q;
  double k;
};
inline HalfDuplexSides half_duplex_sides(const Shape& s) {
  const bool a_sends = s.total(0) > 0;
  return {static_cast<std::size_t>(a_sends ? s.p : s.q), static_cast<std::size_t>(a_sends ? s.q : s.p),
          bytes(s.max_block(a_sends ? 0 : 1))};
}

// M = max(K_A, K_B): the single-port transfer lower bound of seed 001 §2.2 / §4.1.
inline double transfer_bound(const Shape& s) { return bytes(std::max(s.total(0), s.total(1))); }

// Seed 001 Eq. (2), the production root gathering (MPICH): sequential root exchange and two
// sequential scatter-allgather broadcasts,
//   (2 + 2 log p + log q) t_s + (max(K_A - k_A, K_B - k_B) + 3 K_A + 3 K_B) t_w.
// With K_B = 0 it is seed 000's (log p + 1 + 2 log q) t_s + (4p - 1) k t_w, up to the +1.
inline Cost production_root_gathering_cost(const Shape& s) {
  const double gather = std::max(bytes(s.total(0) - s.max_block(0)), bytes(s.total(1) - s.max_block(1)));
  return {2 + 2 * log2_rounds(static_cast<std::size_t>(s.p)) + log2_rounds(static_cast<std::size_t>(s.q)),
          gather + 3 * bytes(s.total(0)) + 3 * bytes(s.total(1))};
}

}  // namespace collrepro::inter
