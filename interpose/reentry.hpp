// Reentry: while the library runs one of its algorithms, the MPI calls the algorithm makes
// (MPI_Allgather on a sub-communicator, MPI_Neighbor_alltoall inside a baseline, ...) reach
// our own intercepts again. They must go straight to the MPI library: an Entered object marks
// the calling thread as inside the library until it goes out of scope.
#pragma once

namespace collrepro::pmpi {

class Entered {
 public:
  Entered() { ++depth_; }
  ~Entered() { --depth_; }
  Entered(const Entered&) = delete;
  Entered& operator=(const Entered&) = delete;
  static bool inside() { return depth_ > 0; }

 private:
  static inline thread_local int depth_ = 0;
};

}  // namespace collrepro::pmpi
