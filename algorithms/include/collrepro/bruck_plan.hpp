// The Bruck (concatenation) Allgather plan for any number of processes n: pure, no MPI.
// Algorithm and executor: algorithms/intra/bruck.cpp; documentation: docs/algorithms/bruck.md.
//
// Rank r starts with its own block. In round k = 0, 1, ..., ceil(log2 n) - 1, with distance
// d = 2^k and c = min(d, n - d), it sends the c blocks it holds, r, r+1, ..., r+c-1 (mod n), to
// rank r - d and receives blocks r+d, ..., r+d+c-1 (mod n) from rank r + d. After round k it
// holds min(2d, n) consecutive blocks starting at its own; after the last round, all n.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace collrepro::intra::bruck {

struct Round {
  int distance = 0;               // d = 2^k
  int send_to = 0;                // (r - d) mod n
  int recv_from = 0;              // (r + d) mod n
  std::vector<int> send_blocks;   // block indices (= origin ranks), in order
  std::vector<int> recv_blocks;
};

// The rounds of `rank` among n >= 1 processes (none for n = 1).
std::vector<Round> plan(int n, int rank);

// The cost terms in the alpha-beta model: the number of rounds, and the sum over rounds of the
// largest number of bytes any rank receives in that round (blocks[j]: bytes of rank j's block).
struct Terms {
  double rounds = 0;
  double bytes = 0;
};
Terms cost_terms(std::span<const std::size_t> blocks);

}  // namespace collrepro::intra::bruck
