// The inter-group collective family: Allgather and Allgatherv between two disjoint groups
// A (side 0, p processes) and B (side 1, q processes), with MPI's intercommunicator
// semantics: every process of one group receives the blocks of all processes of the other
// group, in remote rank order. Half-duplex all-to-all broadcast (seed 000) is the
// Allgather with one direction empty (kb = 0 or ka = 0).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "collrepro/group_pair.hpp"
#include "collrepro/registry.hpp"

namespace collrepro::inter {

// The global shape of one call (what a config point describes). Algorithms read it in
// supports() and cost(); at run time they see only their own Args, as an MPI call would.
struct Shape {
  int p = 0;                      // |A|
  int q = 0;                      // |B|
  std::vector<std::size_t> a;     // block bytes of a_0..a_{p-1}
  std::vector<std::size_t> b;     // block bytes of b_0..b_{q-1}

  static Shape uniform(int p, int q, std::size_t ka, std::size_t kb);
  int size(int side) const { return side == 0 ? p : q; }
  const std::vector<std::size_t>& blocks(int side) const { return side == 0 ? a : b; }
  std::size_t total(int side) const;       // K_A or K_B
  std::size_t max_block(int side) const;
  bool uniform_blocks() const;             // every a equal and every b equal
  // Exactly one direction carries data (or none): the half-duplex case of seed 000.
  bool half_duplex() const { return total(0) == 0 || total(1) == 0; }
  std::string describe() const;            // "p=25 q=7 ka=1024 kb=1024" or "... K_A=.. K_B=.."
};

// One process's arguments, as for MPI_Allgather(v) on an intercommunicator.
struct Args {
  const std::byte* send = nullptr;
  std::size_t send_bytes = 0;
  std::byte* recv = nullptr;
  std::vector<std::size_t> recv_counts;  // remote_size entries: bytes of remote rank j
  std::vector<std::size_t> recv_displs;  // remote_size entries: offset of remote rank j's block in recv

  // Allgather: every remote block has recv_block bytes, at j * recv_block.
  static Args allgather(const std::byte* send, std::size_t send_bytes, std::byte* recv, int remote_size,
                        std::size_t recv_block);
  std::size_t recv_block() const { return recv_counts.empty() ? 0 : recv_counts.front(); }
  // True when displs are the running sum of counts (the result is one contiguous run).
  bool contiguous() const;
  std::size_t recv_total() const;
};

class InterAlgorithm : public Algorithm {
 public:
  explicit InterAlgorithm(AlgorithmInfo info) : info_(std::move(info)) {}
  const AlgorithmInfo& info() const final { return info_; }

  // Whether the algorithm handles this shape in this pair mode; if not, why.
  virtual Support supports(const Shape& shape, PairMode mode) const = 0;
  // The cost-model prediction in the paper's model.
  virtual Cost cost(const Shape& shape) const = 0;
  // The lower bound of the collective on the algorithm's topology (fully connected by
  // default: max(K_A, K_B) bytes through one port, one start-up).
  virtual Cost lower_bound(const Shape& shape) const;
  // Collective over both groups: builds plans, communicators and buffers. `args` must
  // outlive the runner; run() may be called many times.
  virtual std::unique_ptr<Runner> prepare(const GroupPair& pair, const Args& args) const = 0;
  // The call in `form`, one that supports_call() accepts: blocking is prepare(); a
  // nonblocking or persistent form is a StartedRunner, and a persistent one does its init here
  // (the family times this call as the point's init_s). `caps`: the library's, for a schedule
  // that works around a library's broken form. The default offers blocking only.
  virtual std::unique_ptr<Runner> prepare_call(const GroupPair& pair, const Args& args, CallForm form,
                                               const Capabilities& caps) const;

 private:
  AlgorithmInfo info_;
};

}  // namespace collrepro::inter
