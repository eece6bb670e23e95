// The intra-communicator family: collectives over one communicator of n processes, the MPI
// library's own calls and their mock-ups built from other collectives. Its purpose is
// performance-guideline checking (a native collective should not be slower than a mock-up
// that does the same with other collectives, e.g. MPI_Allgather <= MPI_Gather + MPI_Bcast).
//
// Collectives and what a process holds after the call (block j comes from rank j):
//   intra-allgather(v)  every rank: the n blocks, block j at recv_displs[j]
//   intra-gather        the root: the n blocks; the others: nothing
//   intra-bcast         every rank: the root's block at offset 0 (the root's buffer is the data)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <numeric>
#include <vector>

#include <mpi.h>

#include "collrepro/capabilities.hpp"
#include "collrepro/registry.hpp"

namespace collrepro::intra {

struct Shape {
  int n = 0;                        // processes
  int root = 0;                     // gather and bcast
  std::vector<std::size_t> blocks;  // bytes of rank 0..n-1 (bcast: blocks[root] is the message)

  static Shape uniform(int n, std::size_t m, int root = 0) {
    return {n, root, std::vector<std::size_t>(static_cast<std::size_t>(n), m)};
  }
  std::size_t total() const { return std::accumulate(blocks.begin(), blocks.end(), std::size_t{0}); }
  std::size_t max_block() const { return blocks.empty() ? 0 : *std::max_element(blocks.begin(), blocks.end()); }
  double log_n() const { return n > 1 ? std::ceil(std::log2(static_cast<double>(n))) : 0.0; }
};

// One process's arguments. Bcast uses only recv (recv_counts[root] bytes at offset 0).
struct Args {
  const std::byte* send = nullptr;
  std::size_t send_bytes = 0;
  std::byte* recv = nullptr;
  std::vector<std::size_t> recv_counts;  // n entries
  std::vector<std::size_t> recv_displs;  // n entries
  int root = 0;
};

class IntraAlgorithm : public Algorithm {
 public:
  explicit IntraAlgorithm(AlgorithmInfo info) : info_(std::move(info)) {}
  const AlgorithmInfo& info() const final { return info_; }

  virtual Support supports(const Shape& shape) const;  // default: counts fit an MPI int
  virtual Cost cost(const Shape& shape) const = 0;
  // The collective's lower bound on a fully connected one-ported network.
  Cost lower_bound(const Shape& shape) const;
  // Collective over `comm`; `args` must outlive the runner.
  virtual std::unique_ptr<Runner> prepare(MPI_Comm comm, const Args& args) const = 0;
  // The call in `form`, one that supports_call() accepts: blocking is prepare(); a nonblocking
  // or persistent form is a StartedRunner, and a persistent one does its init here (the family
  // times this call as the point's init_s). `caps`: the library's, for a schedule that works
  // around a library's broken form. The default offers blocking only.
  virtual std::unique_ptr<Runner> prepare_call(MPI_Comm comm, const Args& args, CallForm form,
                                               const Capabilities& caps) const;

 private:
  AlgorithmInfo info_;
};

}  // namespace collrepro::intra
