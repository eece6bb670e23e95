// straightforward: the linear isomorphic all-to-all, allgather and all-to-allw, registered.
//
// Source: seed 004 §3 Listing 4 (and its allgather analogue, the "straightforward" series of
//   Figs. 4, 6, 7, 8). Schedule: straightforward_schedule.cpp; executor: zero_copy_executor.hpp
//   (every step has one part per side, so each is a plain MPI_Sendrecv of the block: Listing 4).
// Cost: s (alpha + m beta); all-to-allw: s alpha + sum_i m_i beta.
// Cases: every neighbourhood and torus, self and repeated offsets, s > p. Rejects: nothing
//   beyond invalid shapes.
#include "scheduled_algorithm.hpp"

namespace collrepro::iso {
namespace {

const char* const kSource = "seed 004 (Träff et al. 2016) §3 Listing 4";

Schedule alltoall(const Neighborhood& n) { return straightforward_schedule(n, Pattern::Alltoall); }
Schedule allgather(const Neighborhood& n) { return straightforward_schedule(n, Pattern::Allgather); }

struct StraightforwardAlltoall final : ScheduledAlgorithm {
  StraightforwardAlltoall()
      : ScheduledAlgorithm(
            {"straightforward", Collective::NeighborAlltoall, "torus", Kind::Baseline, kSource, "s (alpha + m beta)"},
            alltoall) {}
};
struct StraightforwardAllgather final : ScheduledAlgorithm {
  StraightforwardAllgather()
      : ScheduledAlgorithm({"straightforward", Collective::NeighborAllgather, "torus", Kind::Baseline,
                            std::string(kSource) + " (allgather analogue)", "s (alpha + m beta)"},
                           allgather) {}
};
struct StraightforwardAlltoallw final : ScheduledAlgorithm {
  StraightforwardAlltoallw()
      : ScheduledAlgorithm({"straightforward", Collective::NeighborAlltoallw, "torus", Kind::Baseline, kSource,
                            "s alpha + sum_i m_i beta"},
                           alltoall) {}
};

COLLREPRO_REGISTER(StraightforwardAlltoall);
COLLREPRO_REGISTER(StraightforwardAllgather);
COLLREPRO_REGISTER(StraightforwardAlltoallw);

}  // namespace
}  // namespace collrepro::iso
