// The MPI executor of the segmented ring Allgatherv (collrepro/segmented_ring_plan.hpp), in
// place: shared by the intra algorithm `segmented-ring` (algorithms/intra/segmented_ring.cpp)
// and the group phase of `fullduplex-allgatherv-ring` (algorithms/intergroup/).
#pragma once

#include <cstddef>
#include <vector>

#include <mpi.h>

#include "collrepro/mpi.hpp"

namespace collrepro::intra {

class SegmentedRingExecutor {
 public:
  // Plans this rank's steps over `comm` for blocks of `counts` bytes at `displs` of a result
  // buffer (counts.size() == size of comm), with the plan's default segment bound, and builds
  // one MPI_Type_create_hindexed datatype per message (relative to the buffer; no MPI traffic).
  SegmentedRingExecutor(MPI_Comm comm, const std::vector<std::size_t>& counts, const std::vector<std::size_t>& displs);

  // The Allgatherv in place: `result` holds this rank's block at its displacement; afterwards it
  // holds every block at its own. One MPI_Sendrecv per step with a non-empty message
  // (MPI_PROC_NULL on a side without one).
  void run(std::byte* result) const;

  std::size_t segment() const { return segment_; }

 private:
  struct Message {
    int to = MPI_PROC_NULL, from = MPI_PROC_NULL;
    Datatype send, recv;  // null: no message that way
  };
  MPI_Comm comm_;
  std::size_t segment_ = 0;
  std::vector<Message> messages_;
};

}  // namespace collrepro::intra
