// The Bruck Allgather plan (collrepro/bruck_plan.hpp): pure, in collplan, checked without MPI
// by tests/unit/bruck_plan_test.cpp.
#include "collrepro/bruck_plan.hpp"

#include <algorithm>

namespace collrepro::intra::bruck {

std::vector<Round> plan(int n, int rank) {
  std::vector<Round> rounds;
  for (int d = 1; d < n; d *= 2) {
    Round r;
    r.distance = d;
    r.send_to = (rank - d + n) % n;
    r.recv_from = (rank + d) % n;
    const int c = std::min(d, n - d);
    for (int i = 0; i < c; ++i) {
      r.send_blocks.push_back((rank + i) % n);
      r.recv_blocks.push_back((rank + d + i) % n);
    }
    rounds.push_back(std::move(r));
  }
  return rounds;
}

Terms cost_terms(std::span<const std::size_t> blocks) {
  const auto n = static_cast<int>(blocks.size());
  // prefix[i]: the bytes of blocks 0..i-1 of the blocks listed twice (so that a run of c
  // consecutive blocks mod n is one difference).
  std::vector<double> prefix(2 * blocks.size() + 1, 0.0);
  for (std::size_t i = 0; i < 2 * blocks.size(); ++i)
    prefix[i + 1] = prefix[i] + static_cast<double>(blocks[i % blocks.size()]);
  Terms t;
  for (int d = 1; d < n; d *= 2) {
    const int c = std::min(d, n - d);
    double largest = 0;
    for (int r = 0; r < n; ++r) {
      const int first = (r + d) % n;  // rank r receives blocks first .. first + c - 1 (mod n)
      largest = std::max(largest, prefix[static_cast<std::size_t>(first + c)] - prefix[static_cast<std::size_t>(first)]);
    }
    t.rounds += 1;
    t.bytes += largest;
  }
  return t;
}

}  // namespace collrepro::intra::bruck
