#include <gtest/gtest.h>

#include <algorithm>
#include <iomanip>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "collrepro/buffers.hpp"
#include "collrepro/validation.hpp"

namespace collrepro {
namespace {

using Bytes = std::vector<std::byte>;

// Bytes as the messages write them ("0x0a"), written independently of the module.
std::string hex(std::byte b) {
  std::ostringstream out;
  out << "0x" << std::hex << std::setw(2) << std::setfill('0') << std::to_integer<unsigned>(b);
  return out.str();
}

// A receive buffer of `size` sentinel bytes holding `blocks`: what a correct algorithm leaves.
Bytes correct(std::size_t size, const std::vector<ExpectedBlock>& blocks) {
  Bytes out(size, kSentinel);
  fill_blocks(out, blocks);
  return out;
}

// Succeeds when there is a message, it starts with `start` and contains every one of `parts`.
::testing::AssertionResult says(const std::optional<std::string>& message, std::string_view start,
                                std::initializer_list<std::string_view> parts = {}) {
  if (!message) return ::testing::AssertionFailure() << "no message: the check passed";
  if (!message->starts_with(start))
    return ::testing::AssertionFailure() << "'" << *message << "' does not start with '" << start << "'";
  for (std::string_view part : parts)
    if (message->find(part) == std::string::npos)
      return ::testing::AssertionFailure() << "'" << *message << "' lacks '" << part << "'";
  return ::testing::AssertionSuccess();
}

void flip(Bytes& b, std::size_t i) { b[i] ^= std::byte{0x01}; }

// Side B's view of an inter-group Allgatherv from a group A of 3: blocks reversed, with gaps.
struct InterCase {
  std::vector<std::size_t> counts{5, 0, 11}, displs{20, 3, 4};
  std::vector<ExpectedBlock> blocks = inter_expected(counts, displs, 1, 42);
  Bytes recv = correct(33, blocks);
};

TEST(Pattern, AnyStartIndexGivesTheSameBytes) {
  Bytes whole(40), tail(27);
  fill_pattern(whole, 1, 3, 9);
  fill_pattern(tail, 1, 3, 9, 13);
  for (std::size_t i = 0; i < tail.size(); ++i) {
    EXPECT_EQ(tail[i], whole[13 + i]);
    EXPECT_EQ(tail[i], pattern_byte(1, 3, 13 + i, 9));
  }
  EXPECT_EQ(first_pattern_mismatch(tail, 1, 3, 9, 13), std::nullopt);
  EXPECT_EQ(first_pattern_mismatch(tail, 1, 3, 9, 12), 0u);
  flip(tail, 7);
  EXPECT_EQ(first_pattern_mismatch(tail, 1, 3, 9, 13), 7u);
}

TEST(Buffer, IsFilledUnlessItsBlockIsSharedScratch) {
  Buffer plain(100);
  EXPECT_TRUE(plain.holds_data());
  EXPECT_TRUE(std::all_of(plain.span().begin(), plain.span().end(), [](std::byte b) { return b == kSentinel; }));

  // A block the allocator calls shared scratch is never filled, by the constructor or fill().
  set_shared_block_query([](const void*) { return true; });
  Buffer scratch(100);
  EXPECT_FALSE(scratch.holds_data());
  scratch.data()[7] = std::byte{1};
  scratch.fill(kSentinel);
  EXPECT_EQ(scratch.data()[7], std::byte{1});
  set_shared_block_query(nullptr);
  EXPECT_TRUE(Buffer(100).holds_data());
}

TEST(CheckBlocks, AcceptsTheCorrectResult) {
  const InterCase c;
  EXPECT_EQ(check_blocks(c.recv, c.blocks), std::nullopt);
  EXPECT_EQ(check_inter_result(c.recv, c.counts, c.displs, 1, 42), std::nullopt);
}

TEST(CheckBlocks, NamesAFlippedByteItsBlockAndTheExpectedValue) {
  InterCase c;
  flip(c.recv, 23);  // byte 3 of remote rank 0's block at 20
  const std::string expected = "byte 23 of the receive buffer is " + hex(c.recv[23]) + ", expected " +
                               hex(pattern_byte(0, 0, 3, 42)) + " (byte 3 of block 0, from group A rank 0)";
  EXPECT_EQ(check_blocks(c.recv, c.blocks), expected);
  EXPECT_EQ(check_inter_result(c.recv, c.counts, c.displs, 1, 42), expected);
}

TEST(CheckBlocks, NamesAClobberedSentinelInAGapAndPastTheEnd) {
  for (std::size_t at : {0u, 15u, 25u, 32u}) {
    InterCase c;
    c.recv[at] = std::byte{0x00};
    EXPECT_EQ(check_blocks(c.recv, c.blocks),
              "byte " + std::to_string(at) + " of the receive buffer is 0x00, outside every block: sentinel 0xa5 expected");
  }
}

TEST(CheckBlocks, ReportsTheLowestWrongByte) {
  InterCase c;
  flip(c.recv, 24);
  c.recv[16] = std::byte{0};
  flip(c.recv, 5);
  EXPECT_TRUE(says(check_blocks(c.recv, c.blocks), "byte 5 of"));
}

TEST(CheckBlocks, SaysWhoseDataAMisplacedBlockHolds) {
  const std::vector<std::size_t> counts{8, 8}, displs{0, 8};
  const auto blocks = inter_expected(counts, displs, 0, 7);
  const Bytes swapped = correct(16, {{0, 8, 1, 1, 7}, {8, 8, 1, 0, 7}});
  EXPECT_TRUE(says(check_blocks(swapped, blocks), "byte 0 of", {"holds the data of block 1, from group B rank 1"}));
}

TEST(CheckBlocks, SaysWhenABlockWasNeverWritten) {
  InterCase c;
  std::fill(c.recv.begin() + 4, c.recv.begin() + 15, kSentinel);
  EXPECT_TRUE(says(check_blocks(c.recv, c.blocks), "byte 4 of",
                   {"block 2, from group A rank 2", "sentinel (never written?)"}));
}

TEST(CheckBlocks, RejectsADescriptionThatDoesNotFit) {
  const Bytes recv(10, kSentinel);
  EXPECT_THROW(check_blocks(recv, std::vector<ExpectedBlock>{{6, 5, 0, 0, 0}}), std::invalid_argument);
  EXPECT_THROW(check_blocks(recv, std::vector<ExpectedBlock>{{0, 5, 0, 0, 0}, {4, 2, 0, 1, 0}}), std::invalid_argument);
  EXPECT_EQ(check_blocks(recv, std::vector<ExpectedBlock>{{99, 0, 0, 0, 0}}), std::nullopt)
      << "empty blocks are ignored";
}

TEST(CheckBlocks, PatternOffsetSelectsASliceOfTheSource) {
  // Scatter-like: the receiver gets bytes [6, 10) of rank 2's pattern.
  Bytes root(16);
  fill_pattern(root, 0, 2, 5);
  const Bytes recv(root.begin() + 6, root.begin() + 10);
  EXPECT_EQ(check_blocks(recv, std::vector<ExpectedBlock>{{0, 4, 0, 2, 5, 6}}), std::nullopt);
  EXPECT_NE(check_blocks(recv, std::vector<ExpectedBlock>{{0, 4, 0, 2, 5, 0}}), std::nullopt);
}

// A neighbourhood collective by hand: each rank's send buffer from neighbor_send_blocks; receive
// block i copies send block i (all-to-all) or 0 (allgather) of sources[i].
Bytes deliver(NeighborKind kind, const std::vector<int>& sources, std::size_t m, std::uint64_t salt) {
  const std::size_t send_blocks = kind == NeighborKind::Allgather ? 1 : sources.size();
  const std::vector<std::size_t> counts(send_blocks, m);
  std::vector<std::size_t> displs;
  for (std::size_t i = 0; i < send_blocks; ++i) displs.push_back(i * m);
  Bytes recv;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const Bytes send = correct(send_blocks * m, neighbor_send_blocks(counts, displs, sources[i], salt));
    const std::size_t from = (kind == NeighborKind::Allgather ? 0 : i) * m;
    recv.insert(recv.end(), send.begin() + static_cast<std::ptrdiff_t>(from),
                send.begin() + static_cast<std::ptrdiff_t>(from + m));
  }
  return recv;
}

TEST(NeighborExpected, AcceptsBothKindsAndTellsThemApart) {
  const std::vector<int> sources{4, 0, 4, 3};
  const std::vector<std::size_t> counts(4, 9), displs{0, 9, 18, 27};
  for (auto kind : {NeighborKind::Alltoall, NeighborKind::Allgather}) {
    const auto other = kind == NeighborKind::Alltoall ? NeighborKind::Allgather : NeighborKind::Alltoall;
    const Bytes recv = deliver(kind, sources, 9, 77);
    EXPECT_EQ(check_blocks(recv, neighbor_expected(kind, counts, displs, sources, 77)), std::nullopt);
    EXPECT_TRUE(says(check_blocks(recv, neighbor_expected(other, counts, displs, sources, 77)), "byte 9 of",
                     {"block 1, from rank 0's send block"}));
  }
}

TEST(NeighborExpected, CatchesBlocksDeliveredInTheWrongPosition) {
  const std::vector<int> sources{1, 1};
  const std::vector<std::size_t> counts(2, 4), displs{0, 4};
  Bytes recv = deliver(NeighborKind::Alltoall, sources, 4, 3);
  std::rotate(recv.begin(), recv.begin() + 4, recv.end());
  const auto expected = neighbor_expected(NeighborKind::Alltoall, counts, displs, sources, 3);
  EXPECT_TRUE(says(check_blocks(recv, expected), "byte 0 of", {"holds the data of block 1, from rank 1's send block 1"}));
}

TEST(IntraExpected, AllgathervAndBcast) {
  const std::vector<std::size_t> counts{3, 0, 6}, displs{0, 3, 4};
  Bytes recv(10, kSentinel);
  for (int j = 0; j < 3; ++j) {
    Bytes send(counts[static_cast<std::size_t>(j)]);
    fill_pattern(send, 0, j, 11);
    std::copy(send.begin(), send.end(), recv.begin() + std::ptrdiff_t(displs[static_cast<std::size_t>(j)]));
  }
  EXPECT_EQ(check_blocks(recv, per_rank_expected(counts, displs, 11)), std::nullopt);
  EXPECT_TRUE(says(check_blocks(recv, per_rank_expected(counts, displs, 12)), "byte 0 of",
                   {"(byte 0 of block 0, from rank 0)"}));

  Bytes bcast(5);
  fill_pattern(bcast, 0, 2, 8);
  EXPECT_EQ(check_blocks(bcast, root_expected(5, 2, 8)), std::nullopt);
  flip(bcast, 4);
  EXPECT_TRUE(
      says(check_blocks(bcast, root_expected(5, 2, 8)), "byte 4 of", {"(byte 4 of block 0, from root rank 2)"}));
}

// check_result: send buffer, then blocks, then the reference, each message starting with `who`.
struct ResultCase {
  InterCase c;
  Bytes send = correct(6, {{0, 6, 1, 2, 42}}), before = send, native = c.recv;
  ResultToCheck input() const {
    return {"world rank 5 (group B rank 2)", before, send, c.recv, c.blocks, Reference{native, "native"}};
  }
};

TEST(CheckResult, AcceptsTheCorrectResult) {
  const ResultCase r;
  EXPECT_EQ(check_result(r.input()), std::nullopt);
  ResultToCheck without_reference = r.input();
  without_reference.reference.reset();
  EXPECT_EQ(check_result(without_reference), std::nullopt);
}

TEST(CheckResult, AModifiedSendBufferComesFirst) {
  ResultCase r;
  r.send[3] = std::byte{0x5a};
  flip(r.c.recv, 0);
  EXPECT_EQ(check_result(r.input()), "world rank 5 (group B rank 2): the send buffer was modified: byte 3 of the send "
                                     "buffer is 0x5a, was " + hex(r.before[3]));
}

TEST(CheckResult, ThenTheBlocksThenTheReference) {
  ResultCase r;
  r.c.recv[32] = std::byte{0x01};
  flip(r.native, 1);
  EXPECT_EQ(check_result(r.input()), "world rank 5 (group B rank 2): byte 32 of the receive buffer is 0x01, outside "
                                     "every block: sentinel 0xa5 expected");
  r.c.recv[32] = kSentinel;
  EXPECT_EQ(check_result(r.input()), "world rank 5 (group B rank 2): byte 1 of the receive buffer is 0xa5, the "
                                     "reference algorithm native has 0xa4");
}

TEST(CheckResult, AReferenceOfAnotherSizeFails) {
  ResultCase r;
  r.native.pop_back();
  EXPECT_TRUE(says(check_result(r.input()), "world rank 5 (group B rank 2): ",
                   {"the receive buffer has 33 bytes, the reference algorithm native's 32"}));
}

}  // namespace
}  // namespace collrepro
