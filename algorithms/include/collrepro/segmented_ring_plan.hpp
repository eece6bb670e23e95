// The segmented ring Allgatherv plan for n ranks and any block sizes: pure, no MPI.
// Algorithm and executor: algorithms/intra/segmented_ring.cpp; documentation:
// docs/algorithms/segmented-ring.md.
//
// Block j (k_j bytes, rank j's) is cut into c_j = ceil(k_j / S) segments of S bytes, the last
// one shorter (a zero-byte block has none). Every segment travels the ring r -> r + 1 (mod n)
// from its owner through the n - 1 other ranks, and the blocks are pipelined independently of
// one another: segment i of block j makes hop h (from rank j + h to rank j + h + 1, h = 0 ..
// n - 2) in step i + h. In step t rank r therefore sends to r + 1, for every block j with
// h = (r - j) mod n <= n - 2 and 0 <= t - h < c_j, segment t - h of block j, which it received
// in step t - 1 (or owns, h = 0); it receives from r - 1 what r - 1 sends. A message carries at
// most one segment of each block, so at most (n - 1) S bytes, and a large block no longer
// holds up a step for every other one: with S >= max k_j the plan is the plain ring (n - 1
// steps, step t moves block r - t), with a smaller S the steps even out.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace collrepro::intra::segmented_ring {

// Bytes [offset, offset + bytes) of block `block` (block j is rank j's).
struct Piece {
  int block = 0;
  std::size_t offset = 0;
  std::size_t bytes = 0;
  bool operator==(const Piece&) const = default;
};

// One step of one rank: what it sends to (rank + 1) mod n and receives from (rank - 1) mod n,
// each in ascending block order (one message each way; empty: no message).
struct Step {
  std::vector<Piece> send;
  std::vector<Piece> recv;
};

// Blocks up to this size are not cut: a small Allgatherv keeps the plain ring's n - 1 steps.
inline constexpr std::size_t kMinSegment = std::size_t{16} << 10;

// The segment bound S the executor uses: max(ceil(max_j k_j / (n - 1)), kMinSegment), so that
// the largest block is cut into at most n - 1 segments and the plan takes at most 2n - 3 steps.
std::size_t default_segment(std::span<const std::size_t> counts);

// The number of steps: max over non-empty blocks of c_j + n - 2; 0 when n = 1 or every block
// is empty. Every rank's plan has this many steps (some of them empty for that rank).
std::size_t steps(std::span<const std::size_t> counts, std::size_t segment);

// The steps of `rank` among n = counts.size() ranks with segment bound `segment` >= 1.
std::vector<Step> plan(int rank, std::span<const std::size_t> counts, std::size_t segment);

// The alpha-beta terms: the number of steps, and the sum over the steps of the largest bytes
// any rank sends in that step.
struct Terms {
  double rounds = 0;
  double bytes = 0;
};
Terms cost_terms(std::span<const std::size_t> counts, std::size_t segment);

}  // namespace collrepro::intra::segmented_ring
