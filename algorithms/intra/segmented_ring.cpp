// segmented-ring: Allgatherv on one intracommunicator by a ring whose messages carry segments of
// bounded size, pipelined block by block, so that unequal blocks no longer make every step wait
// for the largest one: the project's own Allgatherv for unequal pieces (issue 39), and the group
// phase of fullduplex-allgatherv-ring.
//
// Source: the ring Allgather (every block passes the n - 1 other ranks, r -> r + 1) with
//   pipelined segments, the technique of pipelined chain broadcasts applied to each block at
//   once; no paper pseudocode is transcribed. The schedule: block j is cut into
//   c_j = ceil(k_j / S) segments; segment i makes hop h in step i + h (collrepro/segmented_ring_plan.hpp).
// Segment bound: S = max(ceil(max k / (n - 1)), 16 KiB) (segmented_ring::default_segment).
// Cost: (max_j c_j + n - 2) alpha + sum over steps of the largest message beta (cost_terms);
//   a step holds at most one segment per block, so at most (n - 1) S bytes. Equal blocks k: at most
//   (2n - 3) alpha + (n - 1) k beta; one block k, the others empty: (2n - 3) alpha + about 2k beta,
//   where the plain ring pays (n - 1) alpha + (n - 1) k beta.
// Cases: any n >= 1 (n = 1 and all-empty: no step), zero-byte blocks, unequal blocks, blocks
//   smaller than S (not cut), displacements with gaps (each segment is sent from and received
//   into its final place, so gaps stay untouched and nothing is copied but the own block);
//   counts and displacements must fit an MPI int.
// Executor: per step one MPI_Irecv / MPI_Isend per segment, contiguous bytes at their final
//   places (no derived datatype), then MPI_Waitall. Nonblocking and persistent: each step a round
//   of collrepro/started_rounds.hpp (SegmentedRingExecutor::add_rounds, shared with
//   fullduplex-allgatherv-ring's group phase): MPI_Irecv / MPI_Isend posted, or MPI_Recv_init /
//   MPI_Send_init built once and started, per step.
// Errata: none (no pseudocode is transcribed).
// Plan: collrepro/segmented_ring_plan.hpp, algorithms/intra/plan/segmented_ring_plan.cpp
//   (checked by tests/unit/segmented_ring_plan_test.cpp for n = 1..64). Executor: this file
//   (SegmentedRingExecutor, declared in intra/segmented_ring.hpp).
// Documentation: docs/algorithms/segmented-ring.md.
#include "intra/segmented_ring.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "collrepro/intra.hpp"
#include "collrepro/mpi.hpp"
#include "collrepro/segmented_ring_plan.hpp"

namespace collrepro::intra {
namespace {

constexpr int kTag = 39;

}  // namespace

SegmentedRingExecutor::SegmentedRingExecutor(MPI_Comm comm, const std::vector<std::size_t>& counts,
                                             const std::vector<std::size_t>& displs)
    : comm_(comm), segment_(segmented_ring::default_segment(counts)) {
  int n = 0, rank = 0;
  check(MPI_Comm_size(comm, &n), "MPI_Comm_size");
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  if (counts.size() != static_cast<std::size_t>(n) || displs.size() != counts.size())
    throw std::invalid_argument("segmented-ring: counts and displs need one entry per rank (" + std::to_string(n) +
                                "), got " + std::to_string(counts.size()) + " and " + std::to_string(displs.size()));
  next_ = (rank + 1) % n;
  previous_ = (rank - 1 + n) % n;
  auto place = [&](const std::vector<segmented_ring::Piece>& pieces) {
    std::vector<Span> spans;
    for (const auto& p : pieces) {
      mpi_count(p.bytes, "segmented-ring segment length");  // throws here, not in run()
      spans.push_back({displs[static_cast<std::size_t>(p.block)] + p.offset, p.bytes});
    }
    return spans;
  };
  for (const auto& step : segmented_ring::plan(rank, counts, segment_)) {
    if (step.send.empty() && step.recv.empty()) continue;  // the neighbours have nothing for it either
    steps_.push_back({place(step.send), place(step.recv)});
    most_ = std::max(most_, step.send.size() + step.recv.size());
  }
}

void SegmentedRingExecutor::run(std::byte* result) const {
  // Point-to-point messages between two ranks do not overtake one another, and both post the
  // pieces of a step in the plan's (ascending block) order, so one tag matches them all.
  Requests requests;
  requests.reserve(most_);
  for (const auto& step : steps_) {
    for (const auto& s : step.recv) requests.irecv(result + s.at, s.bytes, previous_, kTag, comm_);
    for (const auto& s : step.send) requests.isend(result + s.at, s.bytes, next_, kTag, comm_);
    requests.wait_all();
  }
}

void SegmentedRingExecutor::add_rounds(StartedRounds& rounds, const ResultAt& result,
                                       std::function<void()> first) const {
  if (steps_.empty()) {
    if (first) rounds.next_round(std::move(first));
    return;
  }
  for (const auto& step : steps_) {
    rounds.next_round(std::exchange(first, {}));
    for (const auto& r : step.recv)
      rounds.recv([result, at = r.at] { return static_cast<void*>(result() + at); },
                  [n = static_cast<int>(r.bytes)] { return n; }, MPI_BYTE, previous_, kTag, comm_);
    for (const auto& s : step.send)
      rounds.send([result, at = s.at] { return static_cast<const void*>(result() + at); },
                  [n = static_cast<int>(s.bytes)] { return n; }, MPI_BYTE, next_, kTag, comm_);
  }
}

namespace {

// This rank's own block into its place in the receive buffer (nothing when it is there already).
void place_own(const Args& args, int rank) {
  const auto own = static_cast<std::size_t>(rank);
  std::byte* mine = args.recv + args.recv_displs[own];
  if (args.recv_counts[own] > 0 && mine != args.send) std::memmove(mine, args.send, args.recv_counts[own]);
}

class SegmentedRingRunner final : public Runner {
 public:
  SegmentedRingRunner(MPI_Comm comm, const Args& args) : args_(args), ring_(comm, args.recv_counts, args.recv_displs) {
    check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
  }
  void run() override {
    place_own(args_, rank_);
    ring_.run(args_.recv);
  }

 private:
  const Args& args_;
  SegmentedRingExecutor ring_;
  int rank_ = 0;
};

// The same steps as rounds: the own block placed before the first.
class SegmentedRingStarted final : public StartedRunner {
 public:
  SegmentedRingStarted(MPI_Comm comm, const Args& args, CallForm form, const Capabilities& caps)
      : args_(args), ring_(comm, args.recv_counts, args.recv_displs), rounds_(form, caps) {
    check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
    ring_.add_rounds(rounds_, [this] { return args_.recv; }, [this] { place_own(args_, rank_); });
  }
  void start() override { rounds_.start(); }
  void wait() override { rounds_.wait(); }

 private:
  const Args& args_;
  SegmentedRingExecutor ring_;
  int rank_ = 0;
  StartedRounds rounds_;  // last: its requests read the members above
};

class SegmentedRing final : public IntraAlgorithm {
 public:
  SegmentedRing()
      : IntraAlgorithm({"segmented-ring", Collective::IntraAllgatherv, Topology::FullyConnected, Kind::Proposed,
                        "collrepro: ring Allgatherv with blocks cut into segments of at most "
                        "max(ceil(max k / (n - 1)), 16 KiB) bytes, pipelined block by block",
                        "(max_j ceil(k_j / S) + n - 2) alpha + sum over steps of the largest message beta"}) {}
  Cost cost(const Shape& s) const override {
    const auto t = segmented_ring::cost_terms(s.blocks, segmented_ring::default_segment(s.blocks));
    return {t.rounds, t.bytes};
  }
  std::unique_ptr<Runner> prepare(MPI_Comm comm, const Args& args) const override {
    return std::make_unique<SegmentedRingRunner>(comm, args);
  }
  std::vector<CallForm> calls() const override { return every_call_form(); }
  std::unique_ptr<Runner> prepare_call(MPI_Comm comm, const Args& args, CallForm form,
                                       const Capabilities& caps) const override {
    if (form == CallForm::Blocking) return prepare(comm, args);
    return std::make_unique<SegmentedRingStarted>(comm, args, form, caps);
  }
};

COLLREPRO_REGISTER(SegmentedRing);

}  // namespace
}  // namespace collrepro::intra
