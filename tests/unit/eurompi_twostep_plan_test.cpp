// Exhaustive check of the EuroMPI'18 two-step plan without MPI: B -> A pieces are matched
// with their sends, then the two Allgathervs of A are simulated from the (color, key)
// splits; every a must end with every byte of m_B in place. A -> B is Algorithm 1's plan,
// checked in fullduplex_plan_test.cpp; here only its send side is compared.
#include <gtest/gtest.h>

#include <map>

#include "collrepro/exchange_plan.hpp"

namespace collrepro::inter {
namespace {

using Size = std::size_t;

// The members of every color of a split, in key order: color -> [(key, rank)].
using Split = std::map<int, std::map<int, int>>;

void simulate_gather(const Split& split, const std::vector<TwoStepPlan>& plans, bool step1,
                     std::vector<std::vector<bool>>& has) {
  for (const auto& [color, members] : split) {
    std::vector<bool> merged(has[0].size(), false);
    int n = 0;
    for (const auto& [key, rank] : members) {
      const auto& counts = step1 ? plans[rank].offset_counts : plans[rank].rank_group_counts;
      const auto& displs = step1 ? plans[rank].offset_displs : plans[rank].rank_group_displs;
      ASSERT_EQ(counts.size(), members.size()) << "counts of color " << color;
      for (Size b = displs[n]; b < displs[n] + counts[n]; ++b) {
        ASSERT_TRUE(has[rank][b]) << "rank " << rank << " contributes byte " << b << " it does not hold";
        merged[b] = true;
      }
      ++n;
    }
    for (const auto& [key, rank] : members)
      for (Size b = 0; b < merged.size(); ++b) has[rank][b] = has[rank][b] || merged[b];
  }
}

void check(int p, int q, Size ka, Size kb) {
  SCOPED_TRACE("p=" + std::to_string(p) + " q=" + std::to_string(q) + " kb=" + std::to_string(kb));
  std::vector<TwoStepPlan> a, b;
  for (int i = 0; i < p; ++i) a.push_back(plan_eurompi_twostep(p, q, i, ka, kb));
  for (int j = 0; j < q; ++j) b.push_back(plan_eurompi_twostep(q, p, j, kb, ka));
  // A -> B is Algorithm 1 unchanged.
  for (int i = 0; i < p; ++i) ASSERT_EQ(a[i].exchange.sends, plan_fullduplex_allgather(p, q, i, ka, kb).sends);
  // B -> A: every receive matches one send of the same size, and lands the right bytes.
  std::vector<std::vector<bool>> has(static_cast<Size>(p), std::vector<bool>(static_cast<Size>(q) * kb, false));
  std::map<std::pair<int, int>, Transfer> sends;
  for (int j = 0; j < q; ++j)
    for (const Transfer& s : b[j].exchange.sends) ASSERT_TRUE(sends.insert({{j, s.peer}, s}).second);
  for (int i = 0; i < p; ++i)
    for (const Transfer& r : a[i].exchange.recvs) {
      auto it = sends.find({r.peer, i});
      ASSERT_NE(it, sends.end()) << "a_" << i << " receives from b_" << r.peer << " without a send";
      ASSERT_EQ(it->second.bytes, r.bytes);
      ASSERT_EQ(r.offset, static_cast<Size>(r.peer) * kb + it->second.offset);
      for (Size x = r.offset; x < r.offset + r.bytes; ++x) has[i][x] = true;
      sends.erase(it);
    }
  ASSERT_TRUE(sends.empty()) << "a send of B has no receive";
  Split offsets, groups;
  for (int i = 0; i < p; ++i) {
    if (a[i].offset_color >= 0) {
      ASSERT_TRUE(offsets[a[i].offset_color].insert({a[i].offset_key, i}).second);
    }
    ASSERT_TRUE(groups[a[i].rank_group_color].insert({a[i].rank_group_key, i}).second);
  }
  ASSERT_EQ(groups.size(), static_cast<Size>(p / q)) << "g = floor(p/q) rank groups";
  simulate_gather(offsets, a, true, has);
  simulate_gather(groups, a, false, has);
  for (int i = 0; i < p; ++i)
    for (Size x = 0; x < has[i].size(); ++x) ASSERT_TRUE(has[i][x]) << "a_" << i << " lacks byte " << x << " of m_B";
}

TEST(EuroMpiTwoStepPlan, EveryProcessOfTheLargerGroupGetsAllOfB) {
  for (int q = 1; q <= 30; ++q)
    for (int p = q; p <= 30; ++p)
      for (Size kb : {Size{0}, Size{1}, Size{5}, Size{64}}) {
        check(p, q, 3, kb);
        if (HasFatalFailure()) return;
      }
  check(25, 7, 4, 1000);
}

}  // namespace
}  // namespace collrepro::inter
