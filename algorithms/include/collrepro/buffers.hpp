// Buffers and their contents.
//
// Send data is a deterministic function of (side, rank, byte index, salt), so expected
// results are computed, never stored, and a misplaced block names where it came from.
// Receive buffers start filled with a sentinel so that writes outside the result (gaps
// between displs, past the end) are caught.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace collrepro {

inline constexpr std::byte kSentinel{0xA5};

// SplitMix64's finalizer: a bijective mix of 64 bits, every input bit affecting every output
// bit (the data pattern below, and collbench's seeded arrival delays).
std::uint64_t splitmix64(std::uint64_t x);

// Byte i of the pattern of (side, rank, salt): an endless deterministic byte stream.
std::byte pattern_byte(int side, int rank, std::size_t i, std::uint64_t salt = 0);
// Writes pattern bytes [from, from + out.size()) of (side, rank, salt) to `out`.
void fill_pattern(std::span<std::byte> out, int side, int rank, std::uint64_t salt = 0, std::size_t from = 0);
// The first index where `got` differs from pattern bytes [from, from + got.size()) of
// (side, rank, salt), or nullopt.
std::optional<std::size_t> first_pattern_mismatch(std::span<const std::byte> got, int side, int rank,
                                                  std::uint64_t salt = 0, std::size_t from = 0);

// Whether a block that Buffer allocated is shared scratch whose contents nobody may rely on.
// Installed once, before the first Buffer, by a program whose allocator hands out such blocks:
// the simulation variant folds large buffers onto the same physical pages (bench/sim), so their
// contents are garbage by design, and writing them costs only page faults. Without a query
// every block holds data.
using SharedBlockQuery = bool (*)(const void* block);
void set_shared_block_query(SharedBlockQuery query);

// A 64-byte aligned byte buffer; never shrinks its allocation below one byte so that data()
// is a valid pointer even for size 0. Filled with `fill` when made, unless its block is shared
// scratch (holds_data() false): such a buffer is never filled, by the constructor, fill() or
// its users (who check holds_data() before writing a pattern), and never validated.
class Buffer {
 public:
  Buffer() : Buffer(0) {}
  explicit Buffer(std::size_t bytes, std::byte fill = kSentinel);
  std::byte* data() { return data_.get(); }
  const std::byte* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  std::span<std::byte> span() { return {data_.get(), size_}; }
  std::span<const std::byte> span() const { return {data_.get(), size_}; }
  bool holds_data() const { return holds_data_; }
  void fill(std::byte value);

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte[], Free> data_;
  std::size_t size_ = 0;
  bool holds_data_ = true;
};

// Validation of an inter-group result at one process of `my_side`: remote block j must be
// the pattern of (1 - my_side, j) at displs[j], and every byte outside the blocks must
// still be the sentinel. Returns a message naming the first wrong byte, or nullopt.
// A shorthand for check_blocks(recv, inter_expected(...)) of collrepro/validation.hpp.
std::optional<std::string> check_inter_result(std::span<const std::byte> recv,
                                              std::span<const std::size_t> counts,
                                              std::span<const std::size_t> displs, int my_side,
                                              std::uint64_t salt = 0);

}  // namespace collrepro
