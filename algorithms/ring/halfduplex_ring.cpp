// halfduplex-ring: the optimal half-duplex inter-group all-to-all broadcast on a ring
// (inter-group MPI_Allgather with one direction empty). Details: docs/algorithms/halfduplex-ring.md.
//
// Source: seed 000 §IV, Algorithms 1 and 3 (corrected) and the derived p > q schedule
//   (our reading of the §IV-E prose). Plan: halfduplex_ring_schedule.cpp (pure, collplan);
//   executor: ring_executor.cpp.
// Cost: (p + q/2)(t_s + k t_w), p + q/2 rounds of one k-byte message per port, against the
//   ring lower bound (p + q/2 - 1)(t_s + k t_w) (§IV-D). Odd sizes: p' + q'/2 rounds with
//   p', q' rounded up to even (minus an idle round in a few tiny cases,
//   halfduplex_ring_busy_rounds).
// Cases: any half-duplex uniform shape (ka > 0 = kb: group A sends; kb > 0 = ka: group B
//   sends; both 0: no-op), p, q >= 1, even or odd (odd: collrepro's phantom-folding
//   extension, see the schedule file), in both GroupPair modes.
// Rejects: data in both directions (the ring algorithms are half-duplex), unequal blocks.
// Call forms: blocking; nonblocking and persistent (the same rounds as MPI_Irecv / MPI_Isend
//   pairs, or persistent requests built at init, one round after the other: ring_executor.cpp).
// Errata corrected: Algorithm 3 stage-2 #4-2 (modulo, condition 2j > 2i + 3p/2 - q, cap
//   at p - 1) and line 58 (sender q/2 + i + 2j, as in 003); see the schedule file and
//   docs/errata.md. Unit test HalfDuplexRingRegression replays the printed Algorithm 3 and
//   expects it to fail.
#include "collrepro/intergroup.hpp"
#include "collrepro/ring_schedule.hpp"
#include "ring/ring_executor.hpp"

namespace collrepro::inter {
namespace {

class HalfDuplexRing final : public InterAlgorithm {
 public:
  HalfDuplexRing()
      : InterAlgorithm({"halfduplex-ring", Collective::Allgather, Topology::Ring, Kind::Proposed,
                        "seed 000 §IV, Algorithms 1 and 3 (corrected) and the derived p > q schedule",
                        "(p + q/2)(t_s + k t_w); odd p or q: rounded up to even"}) {}

  Support supports(const Shape& shape, PairMode) const override { return ring::check_half_duplex(shape); }

  Cost cost(const Shape& shape) const override {
    const auto d = ring::direction_of(shape);
    if (!d) return {};
    return ring::rounds_cost(shape, ring::halfduplex_ring_busy_rounds(d->p, d->q));
  }

  Cost lower_bound(const Shape& shape) const override { return ring::ring_lower_bound(shape); }

  std::unique_ptr<Runner> prepare(const GroupPair& pair, const Args& args) const override {
    return ring::prepare_ring(pair, args, &ring::halfduplex_ring_rank_plan);
  }

  std::vector<CallForm> calls() const override { return every_call_form(); }
  std::unique_ptr<Runner> prepare_call(const GroupPair& pair, const Args& args, CallForm form,
                                       const Capabilities& caps) const override {
    return ring::prepare_ring(pair, args, &ring::halfduplex_ring_rank_plan, form, caps);
  }
};

COLLREPRO_REGISTER(HalfDuplexRing);

}  // namespace
}  // namespace collrepro::inter
