// Pure per-rank plan of the volume-minimal half-duplex fully connected variant
// (halfduplex-fc-minvol; see intergroup/halfduplex_fc_minvol.cpp). p senders a_0..a_{p-1},
// q receivers b_0..b_{q-1}, one k-byte block each at the senders.
//
//   The p block indices are split into q contiguous, balanced ranges (BalancedPartition):
//   receiver b_j owns [lo_j, hi_j), the first p mod q receivers one block more than the rest.
//   Phase 1 (to-owners): a_i sends its block to the owner of index i, which receives it at
//           block i of its result.
//   Phase 2 (receiver-allgatherv): the q receivers run an in-place Allgatherv among themselves,
//           receiver j contributing blocks [lo_j, hi_j). The senders take no part.
//
// The byte counts below are the blocks each schedule delivers, counted once at the process that
// receives them (what the schedule must move at the least; an MPI library's own Allgather or
// Bcast may copy more internally).
#pragma once

#include <cstddef>
#include <vector>

namespace collrepro::inter {

struct HalfDuplexFcMinvolPlan {
  // Phase 1, a sender: the receiver (its local rank in the receiving group) that owns my block.
  // -1 on receivers.
  int send_to = -1;
  // Phase 1, a receiver: I receive block i from sender a_i for every i in [own_lo, own_hi)
  // (empty when p < q and I own nothing; always empty on senders).
  int own_lo = 0;
  int own_hi = 0;
  // Phase 2, a receiver: q entries, in blocks: receiver j contributes counts[j] blocks starting
  // at block displs[j] of the result. Empty on senders (they take no part in phase 2).
  std::vector<std::size_t> counts;
  std::vector<std::size_t> displs;
};

// sender: whether this rank is in the sending group; me: its local rank in its group.
// Requires p >= 1, q >= 1, 0 <= me < (sender ? p : q); throws std::invalid_argument otherwise.
HalfDuplexFcMinvolPlan plan_halfduplex_fc_minvol(int p, int q, bool sender, int me);

// The most blocks one receiver owns: ceil(p/q).
std::size_t halfduplex_fc_minvol_busiest(std::size_t p, std::size_t q);

// Bytes halfduplex-fc-minvol delivers in all: p k in phase 1, (q - 1) p k in phase 2: q p k,
// the minimum (every one of the q receivers must receive all p blocks).
std::size_t halfduplex_fc_minvol_bytes(std::size_t p, std::size_t q, std::size_t k);

// Bytes the paper's schedule (halfduplex-fc, seed 000 §III) delivers in all, per the same count.
//   p >= q: q k in the pair-send, then an Allgather over p processes, p (p - 1) k: p (p - 1) k + q k.
//   p <  q (collrepro's leftover extension included): the broadcasts and the subgroup
//          Allgatherv deliver q p k, the minimum.
std::size_t halfduplex_fc_paper_bytes(std::size_t p, std::size_t q, std::size_t k);

}  // namespace collrepro::inter
