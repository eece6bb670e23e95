#include <cstdlib>
#include <cstring>
#include <new>

#include "collrepro/buffers.hpp"

namespace collrepro {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::uint64_t word(int side, int rank, std::size_t w, std::uint64_t salt) {
  return splitmix64(salt ^ (static_cast<std::uint64_t>(side) << 62) ^
                    (static_cast<std::uint64_t>(rank) << 40) ^ static_cast<std::uint64_t>(w));
}

}  // namespace

std::byte pattern_byte(int side, int rank, std::size_t i, std::uint64_t salt) {
  return static_cast<std::byte>(word(side, rank, i / 8, salt) >> (8 * (i % 8)));
}

void fill_pattern(std::span<std::byte> out, int side, int rank, std::uint64_t salt) {
  for (std::size_t w = 0; w * 8 < out.size(); ++w) {
    const std::uint64_t v = word(side, rank, w, salt);
    const std::size_t n = std::min<std::size_t>(8, out.size() - w * 8);
    for (std::size_t b = 0; b < n; ++b) out[w * 8 + b] = static_cast<std::byte>(v >> (8 * b));
  }
}

std::optional<std::size_t> first_pattern_mismatch(std::span<const std::byte> got, int side, int rank,
                                                  std::uint64_t salt) {
  for (std::size_t w = 0; w * 8 < got.size(); ++w) {
    const std::uint64_t v = word(side, rank, w, salt);
    const std::size_t n = std::min<std::size_t>(8, got.size() - w * 8);
    for (std::size_t b = 0; b < n; ++b)
      if (got[w * 8 + b] != static_cast<std::byte>(v >> (8 * b))) return w * 8 + b;
  }
  return std::nullopt;
}

Buffer::Buffer(std::size_t bytes, std::byte fill) : size_(bytes) {
  const std::size_t alloc = ((std::max<std::size_t>(bytes, 1) + 63) / 64) * 64;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(64, alloc));
  if (!p) throw std::bad_alloc();
  data_.reset(p);
  std::memset(p, std::to_integer<int>(fill), alloc);
}

void Buffer::Free::operator()(std::byte* p) const { std::free(p); }

void Buffer::fill(std::byte value) { std::memset(data_.get(), std::to_integer<int>(value), size_); }

std::optional<std::string> check_inter_result(std::span<const std::byte> recv,
                                              std::span<const std::size_t> counts,
                                              std::span<const std::size_t> displs, int my_side,
                                              std::uint64_t salt) {
  std::vector<bool> covered(recv.size(), false);
  for (std::size_t j = 0; j < counts.size(); ++j) {
    if (displs[j] + counts[j] > recv.size())
      return "block of remote rank " + std::to_string(j) + " ends past the receive buffer";
    const auto block = recv.subspan(displs[j], counts[j]);
    if (auto at = first_pattern_mismatch(block, 1 - my_side, static_cast<int>(j), salt))
      return "byte " + std::to_string(*at) + " of the block from remote rank " + std::to_string(j) +
             " (at offset " + std::to_string(displs[j] + *at) + ") is wrong";
    std::fill(covered.begin() + static_cast<std::ptrdiff_t>(displs[j]),
              covered.begin() + static_cast<std::ptrdiff_t>(displs[j] + counts[j]), true);
  }
  for (std::size_t i = 0; i < recv.size(); ++i)
    if (!covered[i] && recv[i] != kSentinel)
      return "byte " + std::to_string(i) + " outside every block was overwritten";
  return std::nullopt;
}

}  // namespace collrepro
