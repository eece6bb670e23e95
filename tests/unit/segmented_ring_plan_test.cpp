// Exhaustive check of the segmented ring Allgatherv plan (collrepro/segmented_ring_plan.hpp)
// without MPI, for every n = 1..64 and a family of count vectors per n (all zero, equal, one huge
// block, one huge block beside small ones, two sizes in the ratio 11:3, random with zeros), each
// under several segment bounds (1 byte where affordable, a few bytes, the executor's default, and
// one above every block). The steps of all ranks are simulated together, piece by piece:
//   - what rank r sends to r + 1 in step t is exactly what r + 1 receives from r in step t;
//   - a rank sends only a piece it owns or received in an earlier step, and receives no byte of
//     a block twice, nor any byte of its own block;
//   - every piece is at most S bytes and a message carries at most one piece per block;
//   - at the end every rank holds every byte of every block exactly once (the received pieces of
//     block j tile [0, k_j)), and the number of steps is max_j ceil(k_j / S) + n - 2.
// Also: with S >= max k_j the plan is the plain ring; the default S cuts no block into more than
// n - 1 segments; cost_terms equals the largest per-step send counted from the plans.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "collrepro/segmented_ring_plan.hpp"

namespace collrepro::intra::segmented_ring {
namespace {

using Counts = std::vector<std::size_t>;

std::string describe(const Counts& counts, std::size_t segment) {
  std::string s = "S = " + std::to_string(segment) + ", counts =";
  for (std::size_t k : counts) s += " " + std::to_string(k);
  return s;
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Simulates the plans of all n ranks together, step by step.
void check_plans(const Counts& counts, std::size_t segment) {
  SCOPED_TRACE(describe(counts, segment));
  const auto n = static_cast<int>(counts.size());
  const auto un = counts.size();
  std::vector<std::vector<Step>> plans;
  for (int r = 0; r < n; ++r) plans.push_back(plan(r, counts, segment));

  std::size_t most = 0;
  for (std::size_t k : counts) most = std::max(most, ceil_div(k, segment));
  const std::size_t expected_steps = n < 2 || most == 0 ? 0 : most + un - 2;
  ASSERT_EQ(steps(counts, segment), expected_steps);
  for (const auto& p : plans) ASSERT_EQ(p.size(), expected_steps);

  // held[r][j]: offset -> bytes of the pieces of block j rank r has (its own block whole).
  std::vector<std::vector<std::map<std::size_t, std::size_t>>> held(un, std::vector<std::map<std::size_t, std::size_t>>(un));
  for (std::size_t r = 0; r < un; ++r)
    if (counts[r] > 0) held[r][r][0] = counts[r];
  auto has = [&](std::size_t r, const Piece& p) {
    const auto& pieces = held[r][static_cast<std::size_t>(p.block)];
    if (static_cast<std::size_t>(p.block) == r) return p.offset + p.bytes <= counts[r];
    const auto it = pieces.find(p.offset);
    return it != pieces.end() && it->second == p.bytes;
  };

  for (std::size_t t = 0; t < expected_steps; ++t) {
    std::vector<std::vector<Piece>> arriving(un);
    for (std::size_t r = 0; r < un; ++r) {
      const Step& mine = plans[r][t];
      const std::size_t next = (r + 1) % un;
      ASSERT_EQ(plans[next][t].recv, mine.send) << "rank " << r << " -> " << next << " step " << t;
      std::vector<int> blocks;
      for (const Piece& p : mine.send) {
        ASSERT_GE(p.block, 0);
        ASSERT_LT(static_cast<std::size_t>(p.block), un);
        ASSERT_GT(p.bytes, 0u) << "an empty piece, step " << t;
        ASSERT_LE(p.bytes, segment) << "a piece above the segment bound, step " << t;
        ASSERT_LE(p.offset + p.bytes, counts[static_cast<std::size_t>(p.block)]);
        ASSERT_TRUE(has(r, p)) << "rank " << r << " sends block " << p.block << " @" << p.offset
                               << " it does not hold, step " << t;
        blocks.push_back(p.block);
      }
      ASSERT_TRUE(std::is_sorted(blocks.begin(), blocks.end()));
      ASSERT_EQ(std::adjacent_find(blocks.begin(), blocks.end()), blocks.end()) << "two pieces of one block in a message";
      ASSERT_LE(blocks.size(), un - 1);
      arriving[next] = mine.send;
    }
    // Receives land after every send of the step: a piece moves one hop per step.
    for (std::size_t r = 0; r < un; ++r)
      for (const Piece& p : arriving[r]) {
        const auto j = static_cast<std::size_t>(p.block);
        ASSERT_NE(j, r) << "rank " << r << " receives its own block, step " << t;
        auto& pieces = held[r][j];
        const auto after = pieces.lower_bound(p.offset);
        ASSERT_TRUE(after == pieces.end() || after->first >= p.offset + p.bytes) << "rank " << r << " block " << j << " overlap";
        if (after != pieces.begin()) {
          ASSERT_LE(std::prev(after)->first + std::prev(after)->second, p.offset) << "rank " << r << " block " << j << " overlap";
        }
        pieces[p.offset] = p.bytes;
      }
  }
  for (std::size_t r = 0; r < un; ++r)
    for (std::size_t j = 0; j < un; ++j) {
      std::size_t end = 0;
      for (const auto& [offset, bytes] : held[r][j]) {
        ASSERT_EQ(offset, end) << "rank " << r << " misses bytes of block " << j;
        end += bytes;
      }
      ASSERT_EQ(end, counts[j]) << "rank " << r << " block " << j;
    }

  // cost_terms against the per-step maximum counted from the plans.
  double bytes = 0;
  for (std::size_t t = 0; t < expected_steps; ++t) {
    std::size_t largest = 0;
    for (std::size_t r = 0; r < un; ++r) {
      std::size_t sent = 0;
      for (const Piece& p : plans[r][t].send) sent += p.bytes;
      largest = std::max(largest, sent);
    }
    bytes += static_cast<double>(largest);
  }
  const Terms terms = cost_terms(counts, segment);
  EXPECT_EQ(terms.rounds, static_cast<double>(expected_steps));
  EXPECT_EQ(terms.bytes, bytes);
}

// The count vectors of one n: the named shapes and `randoms` random ones with zeros.
std::vector<Counts> count_vectors(int n, std::mt19937& rng, int randoms) {
  const auto un = static_cast<std::size_t>(n);
  std::vector<Counts> out;
  out.emplace_back(un, 0);                       // all zero
  out.emplace_back(un, 5);                       // equal
  Counts huge(un, 0);
  huge[un / 2] = 97;                             // one huge block, the rest empty
  out.push_back(huge);
  Counts beside(un, 2);
  beside[un - 1] = 61;                           // one huge block beside small ones
  out.push_back(beside);
  Counts ratio(un);
  for (std::size_t i = 0; i < un; ++i) ratio[i] = i < (un * 11 + 13) / 14 ? 11 : 3;  // 11:3 pieces
  out.push_back(ratio);
  std::uniform_int_distribution<int> size(0, 40), zero(0, 3);
  for (int v = 0; v < randoms; ++v) {
    Counts c(un);
    for (auto& k : c) k = zero(rng) == 0 ? 0 : static_cast<std::size_t>(size(rng));
    out.push_back(c);
  }
  return out;
}

TEST(SegmentedRingPlan, EveryRankGetsEveryByteOnceForN1To64) {
  std::mt19937 rng(39);
  for (int n = 1; n <= 64; ++n) {
    SCOPED_TRACE("n = " + std::to_string(n));
    for (const Counts& counts : count_vectors(n, rng, n <= 16 ? 12 : 4)) {
      const std::size_t largest = *std::max_element(counts.begin(), counts.end());
      std::vector<std::size_t> bounds{3, 8, default_segment(counts), largest + 1};
      if (n <= 16) bounds.push_back(1);
      for (std::size_t s : bounds) {
        check_plans(counts, s);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(SegmentedRingPlan, LargeBlocksWithTheDefaultSegment) {
  // Sizes the executor meets (64 KiB .. 4 MiB, 11:3, one huge block): the default bound cuts the
  // largest block into at most n - 1 segments, so at most 2n - 3 steps.
  for (int n : {2, 3, 4, 5, 11, 16, 33, 64}) {
    const auto un = static_cast<std::size_t>(n);
    for (std::size_t unit : {std::size_t{64} << 10, std::size_t{1} << 20, std::size_t{4} << 20}) {
      Counts ratio(un, 3 * unit / 14), huge(un, 0);
      for (std::size_t i = 0; i < un; i += 2) ratio[i] = 11 * unit / 14;
      huge[0] = unit;
      for (const Counts& counts : {ratio, huge}) {
        const std::size_t s = default_segment(counts);
        const std::size_t largest = *std::max_element(counts.begin(), counts.end());
        EXPECT_GE(s, kMinSegment);
        if (n > 1) {
          EXPECT_LE(ceil_div(largest, s), un - 1) << describe(counts, s);
        }
        EXPECT_LE(steps(counts, s), n > 1 ? 2 * un - 3 : 0) << describe(counts, s);
        check_plans(counts, s);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(SegmentedRingPlan, WithoutCuttingItIsThePlainRing) {
  // S >= max k_j: n - 1 steps, in step t rank r sends its predecessor's block r - t whole.
  std::mt19937 rng(3);
  for (int n = 2; n <= 64; ++n) {
    const auto un = static_cast<std::size_t>(n);
    Counts counts(un);
    for (auto& k : counts) k = 1 + rng() % 50;
    for (int r = 0; r < n; ++r) {
      const auto steps_of_r = plan(r, counts, 50);
      ASSERT_EQ(steps_of_r.size(), un - 1);
      for (std::size_t t = 0; t + 1 < un; ++t) {
        const int j = static_cast<int>((static_cast<std::size_t>(r) + un - t) % un);
        const Piece whole{j, 0, counts[static_cast<std::size_t>(j)]};
        ASSERT_EQ(steps_of_r[t].send, std::vector<Piece>{whole}) << "n " << n << " rank " << r << " step " << t;
      }
    }
    // The plain ring's cost: each step costs its largest block.
    const Terms t = cost_terms(counts, 50);
    EXPECT_EQ(t.rounds, n - 1);
  }
}

TEST(SegmentedRingPlan, CuttingEvensOutOneHugeBlock) {
  // One block of 1 MiB among n = 8: the plain ring's 7 steps each wait for the whole block
  // (7 MiB of step time); cut into 7 segments, 13 steps of at most one segment each.
  Counts counts(8, 0);
  counts[3] = std::size_t{1} << 20;
  const Terms plain = cost_terms(counts, counts[3]);
  const Terms cut = cost_terms(counts, default_segment(counts));
  EXPECT_EQ(plain.rounds, 7);
  EXPECT_EQ(plain.bytes, 7.0 * counts[3]);
  EXPECT_EQ(cut.rounds, 13);
  EXPECT_LE(cut.bytes, 13.0 * static_cast<double>(ceil_div(counts[3], 7)));
}

}  // namespace
}  // namespace collrepro::intra::segmented_ring
