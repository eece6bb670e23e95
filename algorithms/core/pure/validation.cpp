#include "collrepro/validation.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "collrepro/buffers.hpp"

namespace collrepro {

namespace {

std::string hex(std::byte b) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", std::to_integer<unsigned>(b));
  return text;
}

std::string source_of(const ExpectedBlock& b) {
  return b.source.empty() ? "rank " + std::to_string(b.rank) : b.source;
}

std::string block_name(std::span<const ExpectedBlock> blocks, std::size_t k) {
  return "block " + std::to_string(k) + ", from " + source_of(blocks[k]);
}

std::string byte_is(const char* buffer, std::size_t index, std::byte got) {
  return "byte " + std::to_string(index) + " of the " + buffer + " buffer is " + hex(got);
}

std::optional<std::size_t> first_difference(std::span<const std::byte> a, std::span<const std::byte> b) {
  const auto [at, _] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  if (at == a.end() && a.size() == b.size()) return std::nullopt;
  return static_cast<std::size_t>(at - a.begin());
}

std::optional<std::size_t> first_non_sentinel(std::span<const std::byte> bytes) {
  const auto at = std::find_if(bytes.begin(), bytes.end(), [](std::byte b) { return b != kSentinel; });
  if (at == bytes.end()) return std::nullopt;
  return static_cast<std::size_t>(at - bytes.begin());
}

// Indices of the non-empty blocks in buffer order; throws when they do not fit `size` bytes
// or overlap.
std::vector<std::size_t> buffer_order(std::size_t size, std::span<const ExpectedBlock> blocks) {
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    if (blocks[k].length == 0) continue;
    if (blocks[k].offset > size || blocks[k].length > size - blocks[k].offset)
      throw std::invalid_argument("expected " + block_name(blocks, k) + " ends past the " + std::to_string(size) +
                                  "-byte buffer");
    order.push_back(k);
  }
  std::stable_sort(order.begin(), order.end(), [&](auto x, auto y) { return blocks[x].offset < blocks[y].offset; });
  for (std::size_t i = 1; i < order.size(); ++i) {
    const ExpectedBlock &prev = blocks[order[i - 1]], &next = blocks[order[i]];
    if (prev.offset + prev.length > next.offset)
      throw std::invalid_argument("expected " + block_name(blocks, order[i - 1]) + " and " +
                                  block_name(blocks, order[i]) + " overlap");
  }
  return order;
}

// Where the wrong bytes of block k, from index `at` on, came from: another block's data, or
// nothing at all.
std::string origin_hint(std::span<const std::byte> got, std::span<const ExpectedBlock> blocks, std::size_t k,
                        std::size_t at) {
  for (std::size_t other = 0; other < blocks.size(); ++other) {
    const ExpectedBlock& o = blocks[other];
    if (other == k || o.length == 0) continue;
    if (!first_pattern_mismatch(got.subspan(at), o.side, o.rank, o.salt, o.pattern_offset + at))
      return "; from there on it holds the data of " + block_name(blocks, other);
  }
  if (got[at] == kSentinel) return "; that is the sentinel (never written?)";
  return "";
}

std::string wrong_block_byte(std::span<const std::byte> recv, std::span<const ExpectedBlock> blocks, std::size_t k,
                             std::size_t at) {
  const ExpectedBlock& b = blocks[k];
  const auto got = recv.subspan(b.offset, b.length);
  return byte_is("receive", b.offset + at, got[at]) + ", expected " +
         hex(pattern_byte(b.side, b.rank, b.pattern_offset + at, b.salt)) + " (byte " + std::to_string(at) + " of " +
         block_name(blocks, k) + ")" + origin_hint(got, blocks, k, at);
}

std::string wrong_gap_byte(std::span<const std::byte> recv, std::size_t index) {
  return byte_is("receive", index, recv[index]) + ", outside every block: sentinel " + hex(kSentinel) + " expected";
}

std::optional<std::string> check_send_unchanged(std::span<const std::byte> before, std::span<const std::byte> after) {
  if (before.size() != after.size())
    return "the send buffer has " + std::to_string(after.size()) + " bytes, its copy " + std::to_string(before.size());
  if (auto at = first_difference(after, before))
    return "the send buffer was modified: " + byte_is("send", *at, after[*at]) + ", was " + hex(before[*at]);
  return std::nullopt;
}

std::optional<std::string> check_same_as(std::span<const std::byte> recv, const Reference& ref) {
  if (recv.size() != ref.bytes.size())
    return "the receive buffer has " + std::to_string(recv.size()) + " bytes, the reference algorithm " + ref.name +
           "'s " + std::to_string(ref.bytes.size());
  if (auto at = first_difference(recv, ref.bytes))
    return byte_is("receive", *at, recv[*at]) + ", the reference algorithm " + ref.name + " has " +
           hex(ref.bytes[*at]);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_blocks(std::span<const std::byte> recv, std::span<const ExpectedBlock> blocks) {
  std::size_t checked = 0;  // bytes [0, checked) are right
  for (std::size_t k : buffer_order(recv.size(), blocks)) {
    const ExpectedBlock& b = blocks[k];
    if (auto at = first_non_sentinel(recv.subspan(checked, b.offset - checked)))
      return wrong_gap_byte(recv, checked + *at);
    if (auto at = first_pattern_mismatch(recv.subspan(b.offset, b.length), b.side, b.rank, b.salt, b.pattern_offset))
      return wrong_block_byte(recv, blocks, k, *at);
    checked = b.offset + b.length;
  }
  if (auto at = first_non_sentinel(recv.subspan(checked))) return wrong_gap_byte(recv, checked + *at);
  return std::nullopt;
}

std::optional<std::string> check_result(const ResultToCheck& r) {
  std::optional<std::string> error = check_send_unchanged(r.send_before, r.send_after);
  if (!error) error = check_blocks(r.recv, r.expected);
  if (!error && r.reference) error = check_same_as(r.recv, *r.reference);
  if (error) error = r.who + ": " + *error;
  return error;
}

void fill_blocks(std::span<std::byte> out, std::span<const ExpectedBlock> blocks) {
  for (std::size_t k : buffer_order(out.size(), blocks)) {
    const ExpectedBlock& b = blocks[k];
    fill_pattern(out.subspan(b.offset, b.length), b.side, b.rank, b.salt, b.pattern_offset);
  }
}

std::uint64_t block_salt(std::uint64_t salt, std::size_t block) {
  return salt ^ ((block + 1) * 0x9E3779B97F4A7C15ull);
}

std::vector<ExpectedBlock> inter_expected(std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                                          int my_side, std::uint64_t salt) {
  const int remote = 1 - my_side;
  std::vector<ExpectedBlock> out;
  for (std::size_t j = 0; j < counts.size(); ++j)
    out.push_back({displs[j], counts[j], remote, static_cast<int>(j), salt, 0,
                   std::string("group ") + "AB"[remote] + " rank " + std::to_string(j)});
  return out;
}

std::vector<ExpectedBlock> neighbor_send_blocks(std::span<const std::size_t> counts,
                                                std::span<const std::size_t> displs, int rank, std::uint64_t salt) {
  std::vector<ExpectedBlock> out;
  for (std::size_t i = 0; i < counts.size(); ++i)
    out.push_back({displs[i], counts[i], 0, rank, block_salt(salt, i), 0, "send block " + std::to_string(i)});
  return out;
}

std::vector<ExpectedBlock> neighbor_expected(NeighborKind kind, std::span<const std::size_t> counts,
                                             std::span<const std::size_t> displs, std::span<const int> sources,
                                             std::uint64_t salt) {
  std::vector<ExpectedBlock> out;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const std::size_t sent_as = kind == NeighborKind::Allgather ? 0 : i;
    out.push_back({displs[i], counts[i], 0, sources[i], block_salt(salt, sent_as), 0,
                   "rank " + std::to_string(sources[i]) + "'s send block " + std::to_string(sent_as)});
  }
  return out;
}

std::vector<ExpectedBlock> per_rank_expected(std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                                             std::uint64_t salt) {
  std::vector<ExpectedBlock> out;
  for (std::size_t j = 0; j < counts.size(); ++j) out.push_back({displs[j], counts[j], 0, static_cast<int>(j), salt});
  return out;
}

std::vector<ExpectedBlock> root_expected(std::size_t bytes, int root, std::uint64_t salt) {
  return {{0, bytes, 0, root, salt, 0, "root rank " + std::to_string(root)}};
}

}  // namespace collrepro
