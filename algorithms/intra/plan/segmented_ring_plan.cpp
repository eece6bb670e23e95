// The segmented ring Allgatherv plan (collrepro/segmented_ring_plan.hpp): pure, in collplan,
// checked without MPI by tests/unit/segmented_ring_plan_test.cpp.
#include "collrepro/segmented_ring_plan.hpp"

#include <algorithm>

namespace collrepro::intra::segmented_ring {
namespace {

std::size_t segments(std::size_t bytes, std::size_t segment) { return (bytes + segment - 1) / segment; }

// Segment i of a block of `bytes` bytes.
Piece segment_of(int block, std::size_t bytes, std::size_t segment, std::size_t i) {
  const std::size_t offset = i * segment;
  return {block, offset, std::min(segment, bytes - offset)};
}

// The hop a rank makes for block j when it sends to its successor: (rank - j) mod n; the block
// passes rank j + h at hop h, and hop n - 1 would bring it back to its owner.
std::size_t hop(int rank, int j, int n) { return static_cast<std::size_t>(((rank - j) % n + n) % n); }

// Adds to steps[t].*side, for every block, the segment the link from `sender` carries in step t.
void add_link(std::vector<Step>& steps, std::vector<Piece> Step::*side, int sender,
              std::span<const std::size_t> counts, std::size_t segment) {
  const auto n = static_cast<int>(counts.size());
  for (int j = 0; j < n; ++j) {
    const std::size_t h = hop(sender, j, n), c = segments(counts[static_cast<std::size_t>(j)], segment);
    if (h > static_cast<std::size_t>(n - 2)) continue;  // the link into the block's owner
    for (std::size_t i = 0; i < c; ++i)
      (steps[h + i].*side).push_back(segment_of(j, counts[static_cast<std::size_t>(j)], segment, i));
  }
}

}  // namespace

std::size_t default_segment(std::span<const std::size_t> counts) {
  const std::size_t largest = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
  const std::size_t others = counts.size() > 1 ? counts.size() - 1 : 1;
  return std::max(segments(largest, others), kMinSegment);
}

std::size_t steps(std::span<const std::size_t> counts, std::size_t segment) {
  const std::size_t n = counts.size();
  std::size_t most = 0;
  for (std::size_t k : counts) most = std::max(most, segments(k, segment));
  return n < 2 || most == 0 ? 0 : most + n - 2;
}

std::vector<Step> plan(int rank, std::span<const std::size_t> counts, std::size_t segment) {
  const auto n = static_cast<int>(counts.size());
  std::vector<Step> out(steps(counts, segment));
  if (out.empty()) return out;
  add_link(out, &Step::send, rank, counts, segment);
  add_link(out, &Step::recv, (rank - 1 + n) % n, counts, segment);
  return out;
}

Terms cost_terms(std::span<const std::size_t> counts, std::size_t segment) {
  const std::size_t n = counts.size(), t_max = steps(counts, segment);
  if (t_max == 0) return {};
  // Rank r's link, a difference array over the steps: block j (hop h = r - j mod n, if
  // h <= n - 2) adds S in steps h .. h + c_j - 2 and its last segment in step h + c_j - 1.
  // O(n (n + steps)) time, O(steps) memory.
  std::vector<double> largest(t_max, 0.0), diff(t_max + 1);
  for (std::size_t r = 0; r < n; ++r) {
    std::fill(diff.begin(), diff.end(), 0.0);
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t h = (r + n - j) % n, c = segments(counts[j], segment);
      if (c == 0 || h + 1 >= n) continue;
      const auto full = static_cast<double>(segment), last = static_cast<double>(counts[j] - (c - 1) * segment);
      diff[h] += full;
      diff[h + c - 1] += last - full;
      diff[h + c] -= last;
    }
    double running = 0;
    for (std::size_t t = 0; t < t_max; ++t) largest[t] = std::max(largest[t], running += diff[t]);
  }
  Terms terms{static_cast<double>(t_max), 0.0};
  for (double b : largest) terms.bytes += b;
  return terms;
}

}  // namespace collrepro::intra::segmented_ring
