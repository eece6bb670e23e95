// Transfers over 2 GiB, counted in words.
//
// An MPI count is an int, so one call moves at most 2^31 - 1 elements, and the displacements
// of MPI_Gatherv and MPI_Allgatherv are ints too. Counted in bytes, an aggregate of 1024
// processes' 4 MiB blocks (seed 000 at its largest size) does not fit. The data the algorithms
// move are opaque bytes, so they can as well be counted in words of 2, 4 or 8 bytes (the
// fixed-size unsigned integer types), which moves the same bytes in the same messages with
// counts up to eight times smaller. A word must divide every block it counts.
//
// Pure (collplan, no MPI). The MPI type of a word: collrepro::word_type (collrepro/mpi.hpp).
#pragma once

#include <cstddef>
#include <optional>

namespace collrepro {

// The widest word (8, 4, 2 or 1 bytes) that divides `block`; 8 for an empty block.
std::size_t word_bytes(std::size_t block);

// `bytes` as a count of `word`-byte words, or nullopt when the word does not divide it or the
// count exceeds an int.
std::optional<int> word_count(std::size_t bytes, std::size_t word);

}  // namespace collrepro
