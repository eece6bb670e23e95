// The MPI executor of the segmented ring Allgatherv (collrepro/segmented_ring_plan.hpp), in
// place: shared by the intra algorithm `segmented-ring` (algorithms/intra/segmented_ring.cpp)
// and the group phase of `fullduplex-allgatherv-ring` (algorithms/intergroup/).
#pragma once

#include <cstddef>
#include <vector>

#include <mpi.h>


namespace collrepro::intra {

class SegmentedRingExecutor {
 public:
  // Plans this rank's steps over `comm` for blocks of `counts` bytes at `displs` of a result
  // buffer (counts.size() == size of comm), with the plan's default segment bound, and places
  // every segment in the buffer (offsets only; no MPI traffic).
  SegmentedRingExecutor(MPI_Comm comm, const std::vector<std::size_t>& counts, const std::vector<std::size_t>& displs);

  // The Allgatherv in place: `result` holds this rank's block at its displacement; afterwards it
  // holds every block at its own. Per step, one MPI_Irecv from the predecessor and one MPI_Isend
  // to the successor per segment (contiguous bytes at their final place), then MPI_Waitall.
  void run(std::byte* result) const;

  std::size_t segment() const { return segment_; }

  // This rank's steps, for a caller that posts them itself (the nonblocking and persistent calls
  // of fullduplex-allgatherv-ring, a step per round): per step, the segments it receives from
  // previous() and sends to next() over the communicator, in this order, with tag().
  struct Span {
    std::size_t at = 0, bytes = 0;  // offset in the result buffer
  };
  struct Step {
    std::vector<Span> send, recv;
  };
  const std::vector<Step>& steps() const { return steps_; }
  int next() const { return next_; }
  int previous() const { return previous_; }
  static int tag();

 private:
  MPI_Comm comm_;
  int next_ = 0, previous_ = 0;
  std::size_t segment_ = 0, most_ = 0;  // most_: the most requests of one step
  std::vector<Step> steps_;
};

}  // namespace collrepro::intra
