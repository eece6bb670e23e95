// ring-allgather: the baseline of seed 000's ring experiments: the standard ring Allgather
// over all p + q processes, receivers contributing dummy blocks. Details:
// docs/algorithms/ring-allgather.md.
//
// Source: seed 000 §II, §IV-D and Table II ("Intra-Allgather"), §V (implemented with
//   MPI_Sendrecv under the ring constraint). Plan: ring_allgather_schedule.cpp (pure,
//   collplan); executor: ring_executor.cpp.
// Cost: (p + q - 1)(t_s + k t_w): p + q - 1 rounds in which every process sends and
//   receives one k-byte block.
// Cases: any half-duplex uniform shape, p, q >= 1, even or odd, both GroupPair modes.
// Rejects: data in both directions, unequal blocks (the same checks as halfduplex-ring, so
//   the two are compared on the same shapes).
// Errata: none (the paper gives no pseudocode for the baseline; it is the textbook ring).
// Call forms: blocking; nonblocking and persistent (the same rounds as MPI_Irecv / MPI_Isend
//   pairs, or persistent requests built at init, one round after the other: ring_executor.cpp).
#include "collrepro/intergroup.hpp"
#include "collrepro/ring_schedule.hpp"
#include "ring/ring_executor.hpp"

namespace collrepro::inter {
namespace {

class RingAllgather final : public InterAlgorithm {
 public:
  RingAllgather()
      : InterAlgorithm({"ring-allgather", Collective::Allgather, Topology::Ring, Kind::Baseline,
                        "seed 000 §IV-D, Table II: intra-group ring Allgather over both groups with dummy blocks",
                        "(p + q - 1)(t_s + k t_w)"}) {}

  Support supports(const Shape& shape, PairMode) const override { return ring::check_half_duplex(shape); }

  Cost cost(const Shape& shape) const override {
    const auto d = ring::direction_of(shape);
    if (!d) return {};
    return ring::rounds_cost(shape, ring::ring_allgather_rounds(d->p, d->q));
  }

  Cost lower_bound(const Shape& shape) const override { return ring::ring_lower_bound(shape); }

  std::unique_ptr<Runner> prepare(const GroupPair& pair, const Args& args) const override {
    return ring::prepare_ring(pair, args, &ring::ring_allgather_rank_plan);
  }

  std::vector<CallForm> calls() const override { return every_call_form(); }
  std::unique_ptr<Runner> prepare_call(const GroupPair& pair, const Args& args, CallForm form,
                                       const Capabilities& caps) const override {
    return ring::prepare_ring(pair, args, &ring::ring_allgather_rank_plan, form, caps);
  }
};

COLLREPRO_REGISTER(RingAllgather);

}  // namespace
}  // namespace collrepro::inter
