// Pure per-rank plans of the fully connected inter-group algorithms (no MPI here).
//
// Seed 001's algorithms both have the same skeleton: an exchange of pieces between the
// groups, after which every process holds one contiguous piece of the final result, then
// one intra-group Allgatherv that assembles the result without reordering. A plan is that
// skeleton for one rank: its sends (pieces of its own block), its receives (pieces of the
// contiguous remote result) and the counts/displacements of the final Allgatherv.
// Every plan is computed per rank in time and memory linear in the group sizes.
#pragma once

#include <cstddef>
#include <vector>

namespace collrepro::inter {

// One point-to-point message: `bytes` bytes with remote rank `peer`, at `offset` in the
// sender's own block (a send) or in the contiguous remote result (a receive).
struct Transfer {
  int peer = 0;
  std::size_t offset = 0;
  std::size_t bytes = 0;
  bool operator==(const Transfer&) const = default;
};

struct ExchangePlan {
  std::vector<Transfer> sends;                // in posting order
  std::vector<Transfer> recvs;                // in the order the receiver takes them
  std::vector<std::size_t> gather_counts;     // local_size entries: piece of each local rank
  std::vector<std::size_t> gather_displs;     // where it sits in the contiguous result
};

// ---- Seed 001, Algorithm 1 (full-duplex Allgather with message segmentation) ----------
// One rank's plan. The larger group takes role A (both groups on equal sizes); the smaller
// group B is cut into `n_remote`/`n_local` subgroups of A of ceil/floor size, and each
// b_j's block into balanced segments, one per member of its subgroup (segments are empty
// when k_B is smaller than the subgroup).
ExchangePlan plan_fullduplex_allgather(int n_local, int n_remote, int me, std::size_t k_local,
                                       std::size_t k_remote);

// ---- EuroMPI'18 two-step variant (seed 001 §4; docs/algorithms/eurompi-twostep.md) ----
// B -> A: the larger group A is cut into g = floor(p/q) contiguous rank groups G_t of
// q + e (+1) processes (e = floor((p mod q)/g)); b_j sends segment t of its block (ceil(k_B/g)
// bytes, truncated) to the member at offset j of G_t. A then gathers in two steps: an
// Allgatherv among the g members with the same offset (one per rank group), which
// assembles m_{B,offset}, and an Allgatherv inside each rank group. A -> B is Algorithm 1.
struct TwoStepPlan {
  ExchangePlan exchange;       // the role-B plan carries B's final Allgatherv
  // Role A only: the two Allgathervs, as (color, key) of a split of the group, and counts
  // and displacements over the contiguous result (members in key order).
  int offset_color = -1, offset_key = 0;   // -1: not a member (remainder processes)
  std::vector<std::size_t> offset_counts, offset_displs;
  int rank_group_color = -1, rank_group_key = 0;
  std::vector<std::size_t> rank_group_counts, rank_group_displs;
};
TwoStepPlan plan_eurompi_twostep(int n_local, int n_remote, int me, std::size_t k_local, std::size_t k_remote);

// ---- Seed 001, Algorithm 2 (full-duplex Allgatherv, global byte partition) ------------
// The K bytes of one group's blocks, indexed globally in rank order, are cut into one
// balanced chunk per process of the other group.
//
// Sender side: my block of `my_bytes` starts at global index `my_prefix` (Exscan) of my
// group's `k_total` (Allreduce) bytes; targets ascending, consecutive.
std::vector<Transfer> plan_allgatherv_sends(std::size_t my_prefix, std::size_t my_bytes, std::size_t k_total,
                                            int n_remote);
// Receiver side: my chunk of the remote group's blocks (their sizes are my recvcounts).
// `ordered` applies the receive order of seed 001 §4.1 (high multi-target sender first,
// then the senders between, the low one last); otherwise ascending.
std::vector<Transfer> plan_allgatherv_recvs(int me, int n_local, const std::vector<std::size_t>& remote_counts,
                                            bool ordered);
// The final Allgatherv of the chunks in my group.
void plan_allgatherv_gather(int n_local, std::size_t remote_total, std::vector<std::size_t>& counts,
                            std::vector<std::size_t>& displs);

}  // namespace collrepro::inter
