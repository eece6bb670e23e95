// The shape of an isomorphic collective call and the seed's irregular block rule
// (seed 004 §4, Fig. 3: block i has mhat^(d - ||C^i||) bytes). Pure (collplan).
#include <climits>
#include <numeric>
#include <stdexcept>

#include "collrepro/iso_shape.hpp"

namespace collrepro::iso {
namespace {

constexpr std::size_t kMaxBlock = static_cast<std::size_t>(INT_MAX);

// base^exp, or kMaxBlock + 1 when it exceeds kMaxBlock.
std::size_t capped_power(std::size_t base, int exp) {
  std::size_t v = 1;
  for (int k = 0; k < exp; ++k) {
    if (base != 0 && v > kMaxBlock / base) return kMaxBlock + 1;
    v *= base;
  }
  return v;
}

std::string offset_text(const Offset& c) {
  std::string s = "(";
  for (std::size_t j = 0; j < c.size(); ++j) s += (j ? "," : "") + std::to_string(c[j]);
  return s + ")";
}

}  // namespace


Shape Shape::regular(Neighborhood n, std::size_t m, std::vector<int> dims) {
  return {std::move(n), std::move(dims), m, BlockRule::Uniform};
}

Shape Shape::seed_irregular(Neighborhood n, std::size_t mhat, std::vector<int> dims) {
  return {std::move(n), std::move(dims), mhat, BlockRule::Distance};
}

std::optional<std::string> Shape::invalid() const {
  const int d = neighborhood.dims();
  if (neighborhood.size() == 0) return "the neighbourhood is empty";
  if (!dims.empty() && static_cast<int>(dims.size()) != d)
    return "dims has " + std::to_string(dims.size()) + " entries for a " + std::to_string(d) +
           "-dimensional neighbourhood";
  for (int x : dims)
    if (x < 0) return "dims entries must be >= 0 (0 = chosen by MPI_Dims_create)";
  if (rule == BlockRule::Uniform) {
    if (block > kMaxBlock) return "blocks above 2 GiB - 1 bytes do not fit an MPI count";
    return std::nullopt;
  }
  for (const Offset& c : neighborhood.offsets()) {
    if (norm1(c) > d)
      return "the seed's irregular rule mhat^(d-|C|) needs |C| <= d for every offset (r = 1); " + offset_text(c) +
             " has |C| = " + std::to_string(norm1(c)) + " > d = " + std::to_string(d);
    if (capped_power(block, d - norm1(c)) > kMaxBlock)
      return "mhat^(d-|C|) for offset " + offset_text(c) + " exceeds 2 GiB - 1 bytes";
  }
  return std::nullopt;
}

std::vector<std::size_t> Shape::block_bytes() const {
  if (auto why = invalid()) throw std::invalid_argument("invalid isomorphic shape " + describe() + ": " + *why);
  std::vector<std::size_t> m;
  for (const Offset& c : neighborhood.offsets())
    m.push_back(rule == BlockRule::Uniform ? block : capped_power(block, neighborhood.dims() - norm1(c)));
  return m;
}

std::size_t Shape::total_bytes() const {
  const auto m = block_bytes();
  return std::accumulate(m.begin(), m.end(), std::size_t{0});
}

std::string Shape::describe() const {
  std::string d = "auto";
  bool any = false;
  for (int x : dims) any = any || x != 0;
  if (any) {
    d.clear();
    for (std::size_t j = 0; j < dims.size(); ++j) d += (j ? "x" : "") + std::to_string(dims[j]);
  }
  const std::string size = rule == BlockRule::Uniform ? "m=" + std::to_string(block)
                                                      : "mhat=" + std::to_string(block) + " (m_i = mhat^(d-|C^i|))";
  return neighborhood.to_string() + " dims=" + d + " " + size;
}

}  // namespace collrepro::iso
