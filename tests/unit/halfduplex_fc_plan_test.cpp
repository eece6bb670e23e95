// Exhaustive check of the half-duplex fully connected plan (seed 000 §III and our q mod p
// extension), without MPI: the communicator splits are simulated from the colors and keys,
// messages are followed through phase 1, the broadcasts and the Allgathers, and every
// receiver must end with m_0..m_{p-1} in order.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "collrepro/halfduplex_fc_plan.hpp"

namespace collrepro::inter {
namespace {

struct Member {
  bool sender;
  int rank;
  int key;
};

// Members of each color, sorted by key (the order MPI_Comm_split gives them).
std::map<int, std::vector<Member>> split(const std::vector<std::pair<Member, int>>& colored) {
  std::map<int, std::vector<Member>> groups;
  for (const auto& [m, color] : colored)
    if (color != kNoGroup) groups[color].push_back(m);
  for (auto& [c, v] : groups) std::sort(v.begin(), v.end(), [](auto& x, auto& y) { return x.key < y.key; });
  return groups;
}

void check_shape(int p, int q) {
  const std::string what = "p=" + std::to_string(p) + " q=" + std::to_string(q);
  std::vector<HalfDuplexFcPlan> senders, receivers;
  for (int i = 0; i < p; ++i) senders.push_back(plan_halfduplex_fc(p, q, true, i));
  for (int l = 0; l < q; ++l) receivers.push_back(plan_halfduplex_fc(p, q, false, l));
  // holds[l] = messages receiver l holds; a sender i holds m_i.
  std::vector<std::set<int>> holds(static_cast<std::size_t>(q));
  auto holding = [&](const Member& m) { return m.sender ? std::set<int>{m.rank} : holds[m.rank]; };

  // Phase 1 (p >= q): send_to / recv_from pairs match.
  for (int i = 0; i < p; ++i)
    if (senders[i].send_to >= 0) {
      ASSERT_EQ(receivers[senders[i].send_to].recv_from, i) << what;
      holds[senders[i].send_to].insert(i);
    }
  for (int l = 0; l < q; ++l)
    if (receivers[l].recv_from >= 0) {
      ASSERT_EQ(senders[receivers[l].recv_from].send_to, l) << what;
    }

  // Broadcast groups: one root (a sender, key 0) that holds the message.
  std::vector<std::pair<Member, int>> bcast;
  for (int i = 0; i < p; ++i) bcast.push_back({{true, i, senders[i].bcast_key}, senders[i].bcast_color});
  for (int l = 0; l < q; ++l) bcast.push_back({{false, l, receivers[l].bcast_key}, receivers[l].bcast_color});
  for (auto& [color, members] : split(bcast)) {
    ASSERT_TRUE(members.front().sender) << what << ": the root of a broadcast group is its sender";
    ASSERT_EQ(members.front().key, 0) << what;
    for (std::size_t n = 1; n < members.size(); ++n) {
      ASSERT_FALSE(members[n].sender) << what;
      holds[members[n].rank].insert(members.front().rank);
    }
    if (q % p == 0 && p < q) {
      ASSERT_EQ(members.size(), static_cast<std::size_t>(q / p + 1)) << what;
    }
  }

  // The mixed Allgather group G (p >= q): member with rank n contributes m_n and holds it.
  std::vector<std::pair<Member, int>> gather;
  for (int i = 0; i < p; ++i) gather.push_back({{true, i, senders[i].gather_key}, senders[i].gather_color});
  for (int l = 0; l < q; ++l) gather.push_back({{false, l, receivers[l].gather_key}, receivers[l].gather_color});
  for (auto& [color, members] : split(gather)) {
    ASSERT_EQ(members.size(), static_cast<std::size_t>(p)) << what << ": G has p members";
    for (std::size_t n = 0; n < members.size(); ++n) ASSERT_TRUE(holding(members[n]).count(static_cast<int>(n))) << what;
    for (const Member& m : members)
      if (!m.sender)
        for (int i = 0; i < p; ++i) holds[m.rank].insert(i);
  }

  // Receiver subgroups (p < q): the first p members hold m_0..m_{p-1} in key order; the
  // counts every member computes match the subgroup's real size.
  std::vector<std::pair<Member, int>> subs;
  for (int l = 0; l < q; ++l) subs.push_back({{false, l, receivers[l].sub_key}, receivers[l].sub_color});
  const auto subgroups = split(subs);
  if (p < q && q % p == 0) {
    ASSERT_EQ(subgroups.size(), static_cast<std::size_t>(q / p)) << what;
  }
  for (auto& [color, members] : subgroups) {
    ASSERT_GE(members.size(), static_cast<std::size_t>(p)) << what;
    for (const Member& m : members) ASSERT_EQ(receivers[m.rank].sub_counts.size(), members.size()) << what;
    for (int n = 0; n < p; ++n) ASSERT_TRUE(holds[members[n].rank].count(n)) << what << ": holder of m_" << n;
    for (const Member& m : members)
      for (int i = 0; i < p; ++i) holds[m.rank].insert(i);
  }

  for (int l = 0; l < q; ++l) ASSERT_EQ(holds[l].size(), static_cast<std::size_t>(p)) << what << ": receiver " << l;
}

TEST(HalfDuplexFcPlan, EveryReceiverGetsEveryMessage) {
  for (int p = 1; p <= 40; ++p)
    for (int q = 1; q <= 40; ++q) {
      check_shape(p, q);
      if (HasFatalFailure()) return;
    }
  check_shape(64, 192);
  check_shape(192, 64);
  check_shape(7, 25);
}

}  // namespace
}  // namespace collrepro::inter
