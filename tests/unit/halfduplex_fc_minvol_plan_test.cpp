// Exhaustive check of the volume-minimal half-duplex fully connected plan
// (halfduplex-fc-minvol), without MPI: for every p, q in 1..64 the plans of every sender and
// every receiver are built, blocks are followed through phase 1 (to the owners) and phase 2
// (the receivers' Allgatherv), and the bytes delivered are counted. The byte count of the
// paper's schedule (halfduplex-fc) is checked the same way against its own plan.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "collrepro/halfduplex_fc_minvol_plan.hpp"
#include "collrepro/halfduplex_fc_plan.hpp"

namespace collrepro::inter {
namespace {

constexpr std::size_t kBlock = 7;  // bytes per block: odd, so a count in blocks would not pass for bytes

void check_shape(int p, int q) {
  const std::string what = "p=" + std::to_string(p) + " q=" + std::to_string(q);
  const auto P = static_cast<std::size_t>(p), Q = static_cast<std::size_t>(q);
  std::vector<HalfDuplexFcMinvolPlan> senders, receivers;
  for (int i = 0; i < p; ++i) senders.push_back(plan_halfduplex_fc_minvol(p, q, true, i));
  for (int j = 0; j < q; ++j) receivers.push_back(plan_halfduplex_fc_minvol(p, q, false, j));

  // Roles: senders send and own nothing; receivers send nothing.
  for (int i = 0; i < p; ++i) {
    ASSERT_TRUE(senders[i].send_to >= 0 && senders[i].send_to < q) << what << ": sender " << i;
    ASSERT_EQ(senders[i].own_lo, senders[i].own_hi) << what << ": sender " << i << " owns blocks";
    ASSERT_TRUE(senders[i].counts.empty() && senders[i].displs.empty()) << what << ": sender " << i << " in phase 2";
  }
  for (int j = 0; j < q; ++j) ASSERT_EQ(receivers[j].send_to, -1) << what << ": receiver " << j;

  // The ranges cover 0..p-1 in receiver order, without overlap or gap.
  int next = 0;
  std::size_t busiest = 0;
  for (int j = 0; j < q; ++j) {
    ASSERT_EQ(receivers[j].own_lo, next) << what << ": receiver " << j << "'s range";
    ASSERT_LE(receivers[j].own_lo, receivers[j].own_hi) << what << ": receiver " << j;
    next = receivers[j].own_hi;
    busiest = std::max(busiest, static_cast<std::size_t>(receivers[j].own_hi - receivers[j].own_lo));
  }
  ASSERT_EQ(next, p) << what << ": the ranges end at p";
  // Balanced: the busiest receiver owns ceil(p/q), the others at least floor(p/q).
  ASSERT_EQ(busiest, (P + Q - 1) / Q) << what;
  ASSERT_EQ(halfduplex_fc_minvol_busiest(P, Q), busiest) << what;
  for (int j = 0; j < q; ++j)
    ASSERT_GE(static_cast<std::size_t>(receivers[j].own_hi - receivers[j].own_lo), P / Q) << what << ": receiver " << j;

  // Every receiver computes the same phase-2 counts and displacements: its owners' ranges.
  for (int j = 0; j < q; ++j) {
    ASSERT_EQ(receivers[j].counts.size(), Q) << what << ": receiver " << j;
    ASSERT_EQ(receivers[j].displs.size(), Q) << what << ": receiver " << j;
    for (int r = 0; r < q; ++r) {
      ASSERT_EQ(receivers[j].displs[r], static_cast<std::size_t>(receivers[r].own_lo)) << what << ": " << j << "/" << r;
      ASSERT_EQ(receivers[j].counts[r], static_cast<std::size_t>(receivers[r].own_hi - receivers[r].own_lo))
          << what << ": " << j << "/" << r;
    }
  }

  // Phase 1: block i goes to exactly one receiver, the owner of index i, which expects it from a_i.
  std::vector<std::vector<char>> holds(Q, std::vector<char>(P, 0));  // holds[j][i]: block i at slot i of b_j
  std::size_t delivered = 0;
  for (int i = 0; i < p; ++i) {
    int expecting = 0;
    for (int j = 0; j < q; ++j) expecting += receivers[j].own_lo <= i && i < receivers[j].own_hi;
    ASSERT_EQ(expecting, 1) << what << ": receivers expecting block " << i;
    const int to = senders[i].send_to;
    ASSERT_TRUE(receivers[to].own_lo <= i && i < receivers[to].own_hi) << what << ": a_" << i << " sends to b_" << to;
    ASSERT_FALSE(holds[to][i]) << what << ": block " << i << " twice at b_" << to;
    holds[to][i] = 1;
    delivered += kBlock;
  }

  // Phase 2: receiver j gets counts[r] blocks at displs[r] from every other receiver r, which
  // must hold them after phase 1.
  const auto after_phase_one = holds;
  for (int j = 0; j < q; ++j)
    for (int r = 0; r < q; ++r) {
      if (r == j) continue;
      for (std::size_t b = receivers[j].displs[r]; b < receivers[j].displs[r] + receivers[j].counts[r]; ++b) {
        ASSERT_TRUE(after_phase_one[r][b]) << what << ": b_" << r << " contributes block " << b << " it lacks";
        ASSERT_FALSE(holds[j][b]) << what << ": block " << b << " twice at b_" << j;
        holds[j][b] = 1;
        delivered += kBlock;
      }
    }
  for (int j = 0; j < q; ++j)
    ASSERT_EQ(std::count(holds[j].begin(), holds[j].end(), 1), p) << what << ": receiver " << j << " lacks blocks";

  // Bytes in all: q p k, and the plan header's count agrees.
  ASSERT_EQ(delivered, Q * P * kBlock) << what;
  ASSERT_EQ(halfduplex_fc_minvol_bytes(P, Q, kBlock), delivered) << what;
}

TEST(HalfDuplexFcMinvolPlan, EveryBlockOnceToItsOwnerAndEveryReceiverEndsWithAll) {
  for (int p = 1; p <= 64; ++p)
    for (int q = 1; q <= 64; ++q) {
      check_shape(p, q);
      if (HasFatalFailure()) return;
    }
  check_shape(192, 64);
  check_shape(25, 7);
}

TEST(HalfDuplexFcMinvolPlan, RejectsRanksOutOfRange) {
  EXPECT_THROW(plan_halfduplex_fc_minvol(4, 3, true, 4), std::invalid_argument);
  EXPECT_THROW(plan_halfduplex_fc_minvol(4, 3, false, 3), std::invalid_argument);
  EXPECT_THROW(plan_halfduplex_fc_minvol(0, 3, false, 0), std::invalid_argument);
  EXPECT_THROW(plan_halfduplex_fc_minvol(4, 0, true, 0), std::invalid_argument);
  EXPECT_THROW(plan_halfduplex_fc_minvol(4, 3, true, -1), std::invalid_argument);
}

// The bytes the paper's schedule delivers, counted from its own plan (halfduplex_fc_plan.hpp):
// the pair-send, and every member of the Allgather group G, the broadcast groups and the receiver
// subgroups receiving what it does not contribute.
std::size_t paper_bytes_from_plan(int p, int q) {
  std::size_t blocks = 0;
  std::map<int, int> gather_members, bcast_members;
  std::map<int, std::vector<const HalfDuplexFcPlan*>> subgroups;
  std::vector<HalfDuplexFcPlan> plans;
  for (int i = 0; i < p; ++i) plans.push_back(plan_halfduplex_fc(p, q, true, i));
  for (int j = 0; j < q; ++j) plans.push_back(plan_halfduplex_fc(p, q, false, j));
  for (const auto& plan : plans) {
    blocks += plan.recv_from >= 0;
    if (plan.gather_color != kNoGroup) ++gather_members[plan.gather_color];
    if (plan.bcast_color != kNoGroup) ++bcast_members[plan.bcast_color];
    if (plan.sub_color != kNoGroup) subgroups[plan.sub_color].push_back(&plan);
  }
  for (const auto& [c, n] : gather_members) blocks += static_cast<std::size_t>(n) * static_cast<std::size_t>(n - 1);
  for (const auto& [c, n] : bcast_members) blocks += static_cast<std::size_t>(n - 1);
  for (const auto& [c, members] : subgroups)
    for (const HalfDuplexFcPlan* m : members) {
      std::size_t all = 0;
      for (std::size_t x : m->sub_counts) all += x;
      blocks += all - m->sub_counts[static_cast<std::size_t>(m->sub_key)];
    }
  return blocks;
}

TEST(HalfDuplexFcMinvolPlan, PaperScheduleBytesMatchItsPlan) {
  for (int p = 1; p <= 64; ++p)
    for (int q = 1; q <= 64; ++q)
      ASSERT_EQ(halfduplex_fc_paper_bytes(static_cast<std::size_t>(p), static_cast<std::size_t>(q), kBlock),
                paper_bytes_from_plan(p, q) * kBlock)
          << "p=" << p << " q=" << q;
}

// The table of docs/algorithms/halfduplex-fc-minvol.md (k = 1: in units of k).
TEST(HalfDuplexFcMinvolPlan, DocumentedByteCounts) {
  EXPECT_EQ(halfduplex_fc_paper_bytes(12, 4, 1), 136u);
  EXPECT_EQ(halfduplex_fc_minvol_bytes(12, 4, 1), 48u);
  EXPECT_EQ(halfduplex_fc_paper_bytes(8, 8, 1), 64u);
  EXPECT_EQ(halfduplex_fc_minvol_bytes(8, 8, 1), 64u);
  EXPECT_EQ(halfduplex_fc_paper_bytes(4, 12, 1), 48u);
  EXPECT_EQ(halfduplex_fc_minvol_bytes(4, 12, 1), 48u);
}

}  // namespace
}  // namespace collrepro::inter
