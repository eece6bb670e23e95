// straightforward: the linear isomorphic all-to-all, allgather and all-to-allw, registered.
// Details: docs/algorithms/straightforward.md.
//
// Source: seed 004 §3 Listing 4 (and its allgather analogue, the "straightforward" series of
//   Figs. 4, 6, 7, 8).
// Plan: straightforward_schedule.cpp (pure, library collplan). Executor: zero_copy_executor.hpp
//   (every step has one part per side, so each is a plain MPI_Sendrecv of the block: Listing 4).
// Cost: s (alpha + m beta); all-to-allw: s alpha + sum_i m_i beta.
// Cases: every neighbourhood and torus, self and repeated offsets, s > p. Rejects: nothing
//   beyond invalid shapes.
// Errata: none in Listing 4.
// Guideline: the mock-up of the neighbourhood collectives' performance guideline (its
//   registration below names it and the natives it judges: mpi-neighbor, mpi-neighbor-remapped).
#include "scheduled_algorithm.hpp"

namespace collrepro::iso {
namespace {

Schedule alltoall(const Neighborhood& n) { return straightforward_schedule(n, Pattern::Alltoall); }
Schedule allgather(const Neighborhood& n) { return straightforward_schedule(n, Pattern::Allgather); }

const std::string kListing4 = "seed 004 (Träff et al. 2016) §3 Listing 4";

COLLREPRO_REGISTER_ISO(ScheduledAlgorithm, "straightforward", Kind::Baseline,
                       {kListing4, kListing4 + " (allgather analogue)", kListing4},
                       {"s (alpha + m beta)", "s (alpha + m beta)", "s alpha + sum_i m_i beta"}, alltoall, allgather,
                       MockUpOf{{"mpi-neighbor", "mpi-neighbor-remapped"},
                                "MPI_Neighbor_* <= one send and receive per neighbour"});

}  // namespace
}  // namespace collrepro::iso
