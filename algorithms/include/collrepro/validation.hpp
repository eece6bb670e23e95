// Checking the result of one collective call at one process.
//
// The expected receive buffer is described, not stored: a list of blocks, each saying where
// in the receive buffer it lies and which source's deterministic pattern (buffers.hpp) it
// must hold. Because every byte can be recomputed from (side, rank, salt, index), a failure
// names the exact byte, the block and source it belongs to, the value it should have, and
// often where the wrong data came from; and no reference copy of a possibly large result
// has to be built or trusted.
//
// check_result() runs the checks in a fixed order and reports only the first failure:
//   1. the send buffer is unchanged (compared with a copy taken before the call);
//   2. every block holds its source's pattern, and every byte outside the blocks still holds
//      the sentinel the receive buffer was filled with (catches writes into gaps or past
//      the end);
//   3. optionally, the receive buffer equals another algorithm's (the native MPI one) byte
//      for byte.
// Every message starts with the caller's `who`, e.g. "world rank 3 (group A rank 1)".
//
// Builders describe the usual results:
//   inter_expected      inter-group Allgather(v): remote rank j's block at displs[j]
//   neighbor_expected   neighbourhood collectives: block i from sources[i] (its send block i,
//                       or for allgather its only send block), salts from block_salt()
//   per_rank_expected   Allgather(v) / Gather (root) of one communicator: rank j's at displs[j]
//   root_expected       Bcast: the root's block
// and fill_blocks() writes a description into a buffer (e.g. a send buffer made of blocks).
//
// Pure code (no MPI): part of collplan, unit tested in tests/unit/validation_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace collrepro {

// One block of an expected buffer: bytes [offset, offset + length) must equal pattern bytes
// [pattern_offset, pattern_offset + length) of (side, rank, salt).
struct ExpectedBlock {
  std::size_t offset = 0;          // in the buffer
  std::size_t length = 0;          // bytes
  int side = 0;                    // the source's side (0 for a single communicator)
  int rank = 0;                    // the source's rank
  std::uint64_t salt = 0;
  std::size_t pattern_offset = 0;  // where in the source's pattern the block starts
  std::string source = {};         // the source in messages, e.g. "group B rank 2"; empty: "rank 2"
};

// Another algorithm's receive buffer for the same call, e.g. the native MPI collective's.
struct Reference {
  std::span<const std::byte> bytes;
  std::string name;  // the algorithm, e.g. "native" or "mpi-neighbor"
};

// Everything check_result() looks at.
struct ResultToCheck {
  std::string who;                          // starts every message
  std::span<const std::byte> send_before;   // the send buffer, copied before the call
  std::span<const std::byte> send_after;    // the send buffer now
  std::span<const std::byte> recv;          // the receive buffer (filled with kSentinel before the call)
  std::span<const ExpectedBlock> expected;  // what recv must hold; the rest must be kSentinel
  std::optional<Reference> reference;       // byte-equal comparison partner, if any
};

// nullopt when `recv` holds exactly `blocks` and the sentinel elsewhere, otherwise one message
// naming the first wrong byte (lowest index). Empty blocks are ignored. Throws
// std::invalid_argument when the description itself is wrong: a block ending past `recv`, or
// two blocks overlapping.
std::optional<std::string> check_blocks(std::span<const std::byte> recv, std::span<const ExpectedBlock> blocks);

// The three checks in order (see above); nullopt when all pass.
std::optional<std::string> check_result(const ResultToCheck& r);

// Writes every block's pattern into `out` (bytes outside the blocks are left alone).
void fill_blocks(std::span<std::byte> out, std::span<const ExpectedBlock> blocks);

// The salt of send block `block` of a call salted `salt`: distinct blocks of one sender get
// distinct patterns, so a block delivered in the wrong position is caught.
std::uint64_t block_salt(std::uint64_t salt, std::size_t block);

// Inter-group Allgather(v) at a process of `my_side`: block j at displs[j] (counts[j] bytes)
// is the pattern of remote rank j, (1 - my_side, j, salt).
std::vector<ExpectedBlock> inter_expected(std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                                          int my_side, std::uint64_t salt);

// What a neighbourhood collective's send block i carries: block_salt(salt, i) of `rank`.
std::vector<ExpectedBlock> neighbor_send_blocks(std::span<const std::size_t> counts,
                                                std::span<const std::size_t> displs, int rank, std::uint64_t salt);

enum class NeighborKind {
  Alltoall,   // receive block i is send block i of sources[i] (also all-to-allw)
  Allgather,  // receive block i is the one send block of sources[i]
};

// Neighbourhood collective: receive block i at displs[i] comes from sources[i] (R ⊖ C^i),
// which filled its send buffer with neighbor_send_blocks(..., salt).
std::vector<ExpectedBlock> neighbor_expected(NeighborKind kind, std::span<const std::size_t> counts,
                                             std::span<const std::size_t> displs, std::span<const int> sources,
                                             std::uint64_t salt);

// One communicator, every rank j sending the pattern (0, j, salt): Allgather, Allgatherv, and
// Gather(v) at the root have block j at displs[j], counts[j] bytes.
std::vector<ExpectedBlock> per_rank_expected(std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                                             std::uint64_t salt);

// Bcast of `bytes` bytes from `root`, whose buffer held the pattern (0, root, salt).
std::vector<ExpectedBlock> root_expected(std::size_t bytes, int root, std::uint64_t salt);

}  // namespace collrepro
