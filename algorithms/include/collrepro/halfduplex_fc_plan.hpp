// Pure per-rank plan of the half-duplex fully connected algorithm (seed 000 §III); see
// intergroup/halfduplex_fc.cpp. p senders a_0..a_{p-1}, q receivers b_0..b_{q-1}.
//
//   p >= q: a_i -> b_i for i < q; then an Allgather over G = {b_0..b_{q-1}, a_q..a_{p-1}},
//           G-rank = message index.
//   p <  q: write q = f p + r. Broadcast groups {a_i} + {b_l : l < f p, l mod p = i} rooted at
//           a_i; Allgatherv in the f subgroups {b_{ip}..b_{ip+p-1}}.
//           [extension, r > 0] The r leftover receivers b_l (l >= f p) join subgroup
//           (l - f p) mod f with an empty contribution and receive all p blocks in its
//           Allgatherv. The paper covers only r = 0.
#pragma once

#include <cstddef>
#include <vector>

namespace collrepro::inter {

inline constexpr int kNoGroup = -1;  // "not a member" (MPI_UNDEFINED at the split)

struct HalfDuplexFcPlan {
  // Phase 1 (p >= q): the remote rank to send my block to / receive m_me from, or -1.
  int send_to = -1;
  int recv_from = -1;
  // p >= q: the mixed Allgather group G (split of the both-groups communicator).
  int gather_color = kNoGroup;
  int gather_key = 0;       // = the message index this member contributes
  // p < q: broadcast group (root has key 0) and the message it carries.
  int bcast_color = kNoGroup;
  int bcast_key = 0;
  // p < q: receiver subgroup; counts of its Allgatherv in key order (k bytes for the p
  // message holders, 0 for leftover receivers).
  int sub_color = kNoGroup;
  int sub_key = 0;
  std::vector<std::size_t> sub_counts;  // in units of blocks (0 or 1)
};

// sender: whether this rank is in the sender group; me: its local rank.
HalfDuplexFcPlan plan_halfduplex_fc(int p, int q, bool sender, int me);

}  // namespace collrepro::inter
