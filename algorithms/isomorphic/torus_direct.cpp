// torus-direct: the message-combining, zero-copy isomorphic collectives that send straight
// along each dimension, registered for all-to-all, allgather and all-to-allw. Details:
// docs/algorithms/torus-direct.md.
//
// Source: seed 004 §5 "torus direct" (Iso_neighbor_alltoall_direct of Figs. 4, 6, 7; the
//   allgather was implemented too but not plotted).
// Plan: direct_alltoall_schedule.cpp, direct_allgather_schedule.cpp (pure, library collplan).
//   Executor: zero_copy_executor.hpp/.cpp.
// Cost: all-to-all R_dir alpha + V_dir m beta; allgather R_dir alpha + W_dir m beta; all-to-allw
//   R_dir alpha + sum_i nnz(C^i) m_i beta.
// Cases: every neighbourhood and torus. Rejects: a step whose combined message exceeds
//   2 GiB - 1 bytes.
// Errata (docs/errata.md): the shells round count (42, not the printed 12; unit test
//   isoCounts.HeadlineNumbers); see direct_alltoall_schedule.cpp.
#include "scheduled_algorithm.hpp"

namespace collrepro::iso {
namespace {

Schedule alltoall(const Neighborhood& n) { return direct_alltoall_schedule(n); }
Schedule allgather(const Neighborhood& n) { return direct_allgather_schedule(n); }

COLLREPRO_REGISTER_ISO(ScheduledAlgorithm, "torus-direct", Kind::Proposed,
                       {"seed 004 (Träff et al. 2016) §5 torus direct",
                        "seed 004 (Träff et al. 2016) §5 torus direct on the §3.2 prefix trie",
                        "seed 004 (Träff et al. 2016) §5 torus direct, irregular variant of §4"},
                       {"R_dir alpha + V_dir m beta, R_dir = sum_j #distinct nonzero c_j, V_dir = sum_i nnz(C^i)",
                        "R_dir alpha + W_dir m beta, W_dir = nonzero trie edges",
                        "R_dir alpha + sum_i nnz(C^i) m_i beta"},
                       alltoall, allgather);

}  // namespace
}  // namespace collrepro::iso
