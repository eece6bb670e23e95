// torus: the message-combining, zero-copy isomorphic collectives on a one-ported torus,
// registered for all-to-all, allgather and all-to-allw. Details: docs/algorithms/torus.md.
//
// Source: seed 004 §3.1 + §3.3 Algorithm 1 (all-to-all; Iso_neighbor_alltoall of Figs. 2, 4,
//   5, 6, 7, 8), §3.2 prefix trie (allgather; Iso_neighbor_allgather of Fig. 5), §4 (all-to-allw
//   with the same schedule; Iso_neighbor_alltoallw of Fig. 3).
// Plan: torus_alltoall_schedule.cpp, torus_allgather_schedule.cpp (pure, library collplan).
//   Executor: zero_copy_executor.hpp/.cpp.
// Cost: all-to-all D alpha + V m beta; allgather D alpha + W_hop m beta; all-to-allw
//   D alpha + sum_i ||C^i|| m_i beta.
// Cases: every neighbourhood and torus (p_j = 1, 2; |c| >= p_j; s > p; self and repeated
//   offsets). Rejects: a step whose combined message exceeds 2 GiB - 1 bytes.
// Errata (docs/errata.md): the corrected Algorithm 1 (first hop, not firstround == j; unit test
//   isoAlgorithm1Erratum), the D formula, W read as W_hop; see the schedule files.
#include "scheduled_algorithm.hpp"

namespace collrepro::iso {
namespace {

Schedule alltoall(const Neighborhood& n) { return torus_alltoall_schedule(n); }
Schedule allgather(const Neighborhood& n) { return torus_allgather_schedule(n); }

COLLREPRO_REGISTER_ISO(ScheduledAlgorithm, "torus", Kind::Proposed,
                       {"seed 004 (Träff et al. 2016) §3.1, §3.3 Algorithm 1 (corrected)",
                        "seed 004 (Träff et al. 2016) §3.2 prefix trie (Fig. 1), hop by hop",
                        "seed 004 (Träff et al. 2016) §3.3 Algorithm 1 (corrected), irregular variant of §4"},
                       {"D alpha + V m beta, D = sum_j (max c_j^+ + max c_j^-), V = sum_i |C^i|_1",
                        "D alpha + W_hop m beta", "D alpha + sum_i |C^i|_1 m_i beta"},
                       alltoall, allgather);

}  // namespace
}  // namespace collrepro::iso
