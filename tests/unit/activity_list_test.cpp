// bench/sim/simgrid/ActivityList.hpp, the fast SimGrid's list of an actor's pending activities
// (python/collrepro/installations/simgrid.py), against what it replaces: std::list with
// list::remove. After every operation both hold the same pointers in the same order, and every
// activity the same number of references (a removed or cleared entry is released).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <list>
#include <memory>
#include <random>
#include <vector>

#include "ActivityList.hpp"

namespace {

struct Activity {
  int id;
};
using Pointer = std::shared_ptr<Activity>;
using simgrid::kernel::actor::ActivityList;

constexpr int kActivities = 3;
// An operation: 0..2 append activity k, 3..5 remove it by raw pointer, 6..8 remove it by
// smart pointer, 9 clear.
constexpr int kOperations = 3 * kActivities + 1;

struct Pair {
  std::array<Pointer, kActivities> pool{};
  std::list<Pointer> reference;
  ActivityList<Pointer> fast;

  Pair() {
    for (int k = 0; k < kActivities; ++k)
      pool[k] = std::make_shared<Activity>(Activity{k});
  }

  void apply(int op) {
    const int k = op % kActivities;
    if (op < kActivities) {
      reference.emplace_back(pool[k]);
      fast.emplace_back(pool[k]);
    } else if (op < 2 * kActivities) {
      reference.remove(pool[k]);
      fast.remove(pool[k].get());
    } else if (op < 3 * kActivities) {
      reference.remove(pool[k]);
      fast.remove(pool[k]);
    } else {
      reference.clear();
      fast.clear();
    }
  }

  // Empty when both agree, else what differs.
  std::string difference() const {
    std::vector<const Activity*> a, b;
    for (const auto& p : reference) a.push_back(p.get());
    for (const auto& p : fast) b.push_back(p.get());
    if (a != b) return "different entries or order";
    if (fast.size() != reference.size() || fast.empty() != reference.empty()) return "size";
    for (const auto& p : pool)  // pool + reference + fast: the reference's count is one too many
      if (p.use_count() != 1 + 2 * std::count(a.begin(), a.end(), p.get())) return "references";
    return "";
  }
};

std::string describe(const std::vector<int>& ops) {
  std::string s;
  for (int op : ops) s += std::to_string(op) + " ";
  return s;
}

TEST(ActivityList, EverySequenceOfSixOperationsOnThreeActivities) {
  constexpr int kLength = 6;
  std::vector<int> ops(kLength, 0);
  long sequences = 0;
  for (;;) {
    Pair pair;
    for (int i = 0; i < kLength; ++i) {
      pair.apply(ops[i]);
      const std::string diff = pair.difference();
      ASSERT_TRUE(diff.empty()) << diff << " after " << i + 1 << " of: " << describe(ops);
    }
    ++sequences;
    int i = 0;  // the next sequence, as a number in base kOperations
    while (i < kLength && ++ops[i] == kOperations) ops[i++] = 0;
    if (i == kLength) break;
  }
  EXPECT_EQ(sequences, 1000000);  // 10^6: every sequence was tried
}

TEST(ActivityList, LongRandomSequencesWithManyPendingEntries) {
  std::mt19937 rng(20261203);
  for (int trial = 0; trial < 20; ++trial) {
    Pair pair;
    std::uniform_int_distribution<int> op(0, kOperations - 1);
    for (int i = 0; i < 2000; ++i) {
      const int o = op(rng);
      // clear rarely, append often: lists grow to hundreds of entries, as the maestro's do
      if (o == kOperations - 1 && rng() % 50 != 0) continue;
      pair.apply(o < kActivities || rng() % 3 ? o % kActivities : o);
      ASSERT_TRUE(pair.difference().empty()) << "trial " << trial << " step " << i;
    }
  }
}

TEST(ActivityList, IterationVisitsEntriesInInsertionOrderWithDuplicates) {
  Pair pair;
  for (int op : {0, 1, 0, 2, 1}) pair.apply(op);
  pair.apply(kActivities + 0);  // remove activity 0: both of its entries
  std::vector<int> ids;
  for (const auto& p : pair.fast) ids.push_back(p->id);
  EXPECT_EQ(ids, (std::vector<int>{1, 2, 1}));
  pair.apply(2 * kActivities + 1);  // remove activity 1 by smart pointer
  ids.clear();
  for (const auto& p : pair.fast) ids.push_back(p->id);
  EXPECT_EQ(ids, (std::vector<int>{2}));
  EXPECT_EQ(pair.pool[0].use_count(), 1) << "removed entries are released";
}

}  // namespace
