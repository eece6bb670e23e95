// The algorithms move byte runs; applications pass (buffer, count, datatype). A side of a call
// is a list of blocks. When every block is one contiguous run at or after the user's buffer,
// the algorithm works on the user's memory directly (zero copy); otherwise every block is
// packed (send) or received into the caller's scratch buffer and unpacked afterwards (receive)
// with MPI_Pack/MPI_Unpack. The layout is computed first; the copies happen only when an
// algorithm serves the call. A side with a discarded block is staged whole. The byte counts, and so every decision taken from them, are the
// same either way.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace collrepro::pmpi {

struct Block {
  std::byte* at = nullptr;  // the block's address as MPI computes it (buffer + displacement)
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
  bool discard = false;  // receive side: take the bytes into scratch and drop them
};

// Bytes of `count` elements of `type` (MPI_Type_size).
std::size_t block_bytes(int count, MPI_Datatype type);

class Staged {
 public:
  enum class Side { Send, Recv };
  // `scratch` must outlive this object and is resized only here. `stride` > 0 asks for block j
  // at j * stride from the first (staged when the user's blocks do not lie so).
  Staged(std::byte* buffer, std::vector<Block> blocks, std::vector<std::byte>& scratch, Side side,
         std::size_t stride = 0);

  std::byte* base() const { return base_; }
  const std::vector<std::size_t>& counts() const { return counts_; }
  const std::vector<std::size_t>& displs() const { return displs_; }
  bool copied() const { return copied_; }
  // Send side: copies the blocks into the scratch buffer when staged (nothing when zero copy).
  void pack() const;
  // Receive side: copies staged blocks into the user's buffer (nothing when zero copy).
  void unpack() const;

 private:
  std::vector<Block> blocks_;
  std::byte* base_ = nullptr;
  std::vector<std::size_t> counts_, displs_;
  bool copied_ = false;
};

}  // namespace collrepro::pmpi
