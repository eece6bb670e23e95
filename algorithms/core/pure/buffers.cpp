#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "collrepro/buffers.hpp"
#include "collrepro/validation.hpp"

namespace collrepro {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

namespace {

std::uint64_t word(int side, int rank, std::size_t w, std::uint64_t salt) {
  return splitmix64(salt ^ (static_cast<std::uint64_t>(side) << 62) ^
                    (static_cast<std::uint64_t>(rank) << 40) ^ static_cast<std::uint64_t>(w));
}

// Pattern bytes of (side, rank, salt) from index `at` on, one word computed per 8 bytes.
class PatternStream {
 public:
  PatternStream(int side, int rank, std::uint64_t salt, std::size_t at)
      : side_(side), rank_(rank), salt_(salt), at_(at), word_(word(side, rank, at / 8, salt)) {}
  std::byte next() {
    const auto b = static_cast<std::byte>(word_ >> (8 * (at_ % 8)));
    if (++at_ % 8 == 0) word_ = word(side_, rank_, at_ / 8, salt_);
    return b;
  }

 private:
  int side_, rank_;
  std::uint64_t salt_;
  std::size_t at_;
  std::uint64_t word_;
};

}  // namespace

std::byte pattern_byte(int side, int rank, std::size_t i, std::uint64_t salt) {
  return static_cast<std::byte>(word(side, rank, i / 8, salt) >> (8 * (i % 8)));
}

void fill_pattern(std::span<std::byte> out, int side, int rank, std::uint64_t salt, std::size_t from) {
  PatternStream pattern(side, rank, salt, from);
  for (std::byte& b : out) b = pattern.next();
}

std::optional<std::size_t> first_pattern_mismatch(std::span<const std::byte> got, int side, int rank,
                                                  std::uint64_t salt, std::size_t from) {
  PatternStream pattern(side, rank, salt, from);
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != pattern.next()) return i;
  return std::nullopt;
}

namespace {
SharedBlockQuery shared_block_query = nullptr;
}  // namespace

void set_shared_block_query(SharedBlockQuery query) { shared_block_query = query; }

Buffer::Buffer(std::size_t bytes, std::byte fill) : size_(bytes) {
  const std::size_t alloc = ((std::max<std::size_t>(bytes, 1) + 63) / 64) * 64;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(64, alloc));
  if (!p) throw std::bad_alloc();
  data_.reset(p);
  holds_data_ = !(shared_block_query && shared_block_query(p));
  if (holds_data_) std::memset(p, std::to_integer<int>(fill), alloc);
}

void Buffer::Free::operator()(std::byte* p) const { std::free(p); }

void Buffer::fill(std::byte value) {
  if (holds_data_) std::memset(data_.get(), std::to_integer<int>(value), size_);
}

std::optional<std::string> check_inter_result(std::span<const std::byte> recv,
                                              std::span<const std::size_t> counts,
                                              std::span<const std::size_t> displs, int my_side,
                                              std::uint64_t salt) {
  return check_blocks(recv, inter_expected(counts, displs, my_side, salt));
}

}  // namespace collrepro
