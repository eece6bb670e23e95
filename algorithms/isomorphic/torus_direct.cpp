// torus-direct: the message-combining, zero-copy isomorphic collectives that send straight
// along each dimension, registered for all-to-all, allgather and all-to-allw.
//
// Source: seed 004 §5 "torus direct" (Iso_neighbor_alltoall_direct of Figs. 4, 6, 7; the
//   allgather was implemented too but not plotted). Schedules: direct_alltoall_schedule.cpp,
//   direct_allgather_schedule.cpp; executor: zero_copy_executor.hpp.
// Cost: all-to-all R_dir alpha + V_dir m beta; allgather R_dir alpha + W_dir m beta; all-to-allw
//   R_dir alpha + sum_i nnz(C^i) m_i beta.
// Cases: every neighbourhood and torus. Rejects: a step whose combined message exceeds
//   2 GiB - 1 bytes.
// Errata: the shells round count (42, not the printed 12); see direct_alltoall_schedule.cpp.
#include "scheduled_algorithm.hpp"

namespace collrepro::iso {
namespace {

Schedule alltoall(const Neighborhood& n) { return direct_alltoall_schedule(n); }
Schedule allgather(const Neighborhood& n) { return direct_allgather_schedule(n); }

struct DirectAlltoall final : ScheduledAlgorithm {
  DirectAlltoall()
      : ScheduledAlgorithm({"torus-direct", Collective::NeighborAlltoall, "torus", Kind::Proposed,
                            "seed 004 (Träff et al. 2016) §5 torus direct",
                            "R_dir alpha + V_dir m beta, R_dir = sum_j #distinct nonzero c_j, V_dir = sum_i nnz(C^i)"},
                           alltoall) {}
};
struct DirectAllgather final : ScheduledAlgorithm {
  DirectAllgather()
      : ScheduledAlgorithm({"torus-direct", Collective::NeighborAllgather, "torus", Kind::Proposed,
                            "seed 004 (Träff et al. 2016) §5 torus direct on the §3.2 prefix trie",
                            "R_dir alpha + W_dir m beta, W_dir = nonzero trie edges"},
                           allgather) {}
};
struct DirectAlltoallw final : ScheduledAlgorithm {
  DirectAlltoallw()
      : ScheduledAlgorithm({"torus-direct", Collective::NeighborAlltoallw, "torus", Kind::Proposed,
                            "seed 004 (Träff et al. 2016) §5 torus direct, irregular variant of §4",
                            "R_dir alpha + sum_i nnz(C^i) m_i beta"},
                           alltoall) {}
};

COLLREPRO_REGISTER(DirectAlltoall);
COLLREPRO_REGISTER(DirectAllgather);
COLLREPRO_REGISTER(DirectAlltoallw);

}  // namespace
}  // namespace collrepro::iso
