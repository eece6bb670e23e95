// The MPI executor of the segmented ring Allgatherv (collrepro/segmented_ring_plan.hpp), in
// place: shared by the intra algorithm `segmented-ring` (algorithms/intra/segmented_ring.cpp)
// and the group phase of `fullduplex-allgatherv-ring` (algorithms/intergroup/).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include <mpi.h>

#include "collrepro/started_rounds.hpp"


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
  // The steps as rounds of a nonblocking or persistent call (collrepro/started_rounds.hpp), in
  // place on `result`, one round per step (its MPI_Irecv / MPI_Isend, or MPI_Recv_init /
  // MPI_Send_init built once): the `-ring` group phase of fullduplex-allgatherv and the started
  // segmented-ring. `first` runs before the first round's operations start (a round of its own
  // when there is no step).
  // `result` is read when an operation is built or posted (started_rounds.hpp).
  void add_rounds(StartedRounds& rounds, const ResultAt& result, std::function<void()> first = {}) const;

 private:
  struct Span {
    std::size_t at = 0, bytes = 0;  // offset in the result buffer
  };
  struct Step {
    std::vector<Span> send, recv;  // to the successor, from the predecessor
  };
  MPI_Comm comm_;
  int next_ = 0, previous_ = 0;
  std::size_t segment_ = 0, most_ = 0;  // most_: the most requests of one step
  std::vector<Step> steps_;
};

}  // namespace collrepro::intra
