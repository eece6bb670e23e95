#include "staging.hpp"

#include "collrepro/mpi.hpp"

namespace collrepro::pmpi {
namespace {

// The offset of the block's data from `buffer` when it is one contiguous run, else -1.
std::ptrdiff_t contiguous_offset(const std::byte* buffer, const Block& b, std::size_t bytes) {
  if (bytes == 0) return 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  check(PMPI_Type_get_extent(b.type, &lb, &extent), "MPI_Type_get_extent");
  check(PMPI_Type_get_true_extent(b.type, &true_lb, &true_extent), "MPI_Type_get_true_extent");
  const auto element = bytes / static_cast<std::size_t>(b.count);
  const bool one_run = static_cast<std::size_t>(true_extent) == element &&
                       (b.count == 1 || static_cast<std::size_t>(extent) == element);
  if (!one_run) return -1;
  return (b.at + true_lb) - buffer;
}

}  // namespace

std::size_t block_bytes(int count, MPI_Datatype type) {
  int size = 0;
  check(PMPI_Type_size(type, &size), "MPI_Type_size");
  return static_cast<std::size_t>(count) * static_cast<std::size_t>(size);
}

Staged::Staged(std::byte* buffer, std::vector<Block> blocks, std::vector<std::byte>& scratch, Side,
               std::size_t stride)
    : blocks_(std::move(blocks)), base_(buffer) {
  std::size_t total = 0;
  for (const Block& b : blocks_) {
    const std::size_t bytes = block_bytes(b.count, b.type);
    const std::ptrdiff_t at = contiguous_offset(buffer, b, bytes);
    if (at < 0 || b.discard) copied_ = true;
    counts_.push_back(bytes);
    displs_.push_back(at < 0 ? 0 : static_cast<std::size_t>(at));
    total += bytes;
  }
  for (std::size_t i = 0; stride > 0 && !copied_ && i < displs_.size(); ++i)
    if (displs_[i] != displs_[0] + i * stride) copied_ = true;
  if (!copied_) return;
  scratch.resize(total + 1);
  base_ = scratch.data();
  std::size_t at = 0;
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    displs_[i] = at;
    at += counts_[i];
  }
}

void Staged::pack() const {
  if (!copied_) return;
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    if (counts_[i] == 0) continue;
    int position = 0;
    check(PMPI_Pack(blocks_[i].at, blocks_[i].count, blocks_[i].type, base_ + displs_[i],
                    mpi_count(counts_[i], "MPI_Pack"), &position, MPI_COMM_SELF),
          "MPI_Pack");
  }
}

void Staged::unpack() const {
  if (!copied_) return;
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    if (counts_[i] == 0 || blocks_[i].discard) continue;
    int position = 0;
    check(PMPI_Unpack(base_ + displs_[i], mpi_count(counts_[i], "MPI_Unpack"), &position, blocks_[i].at,
                      blocks_[i].count, blocks_[i].type, MPI_COMM_SELF),
          "MPI_Unpack");
  }
}

}  // namespace collrepro::pmpi
