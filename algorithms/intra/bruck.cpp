// bruck: Allgather(v) by Bruck's concatenation algorithm, point to point, for any number of
// processes: the second Allgather(v) mock-up of the performance guidelines (a native
// MPI_Allgather(v) slower than this one, built from MPI_Sendrecv, violates the guideline its
// registration names, mock_up_of; seed 002 §3.4 states the guideline idea, the textbook
// doubling algorithms its §2). A guideline of its own, not gather-bcast's: a violation says
// that the library loses to a textbook point-to-point schedule, not to its own collectives, and
// its checks form their own Benjamini-Hochberg family, so measuring bruck beside gather-bcast
// leaves the gather-bcast verdicts as they were.
//
// Source: J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal, D. Weathersby, "Efficient algorithms for
//   all-to-all communications in multiport message-passing systems", IEEE TPDS 8(11), 1997:
//   the one-port concatenation (index) algorithm, here without its final local rotation: every
//   block is received directly at its displacement through an MPI_Type_create_hindexed type.
// Cost: ceil(log2 n) alpha + (K - k) beta for equal blocks k (K = n k); Allgatherv: the sum over
//   rounds of the largest bytes a rank receives (plan: cost_terms).
// Cases: any n >= 1 (not only powers of two: the last round sends n - 2^k blocks), zero-byte
//   blocks, unequal blocks with gaps between displacements; counts must fit an MPI int.
// Errata: none (no pseudocode is transcribed).
// Plan: collrepro/bruck_plan.hpp, algorithms/intra/plan/bruck_plan.cpp (checked by
//   tests/unit/bruck_plan_test.cpp for n = 1..64). Executor: this file: MPI_Sendrecv per round;
//   nonblocking and persistent, each round a round of collrepro/started_rounds.hpp.
// Documentation: docs/algorithms/bruck.md.
#include <cstring>
#include <utility>

#include "collrepro/bruck_plan.hpp"
#include "collrepro/intra.hpp"
#include "collrepro/mpi.hpp"
#include "collrepro/started_rounds.hpp"

namespace collrepro::intra {
namespace {

// The executor's view of the plan: per round, its partners and the datatypes of the blocks it
// sends and receives, in place in the receive buffer.
class BruckSteps {
 public:
  static constexpr int kTag = 17;
  struct Step {
    int to, from;
    Datatype send_type, recv_type;
  };

  BruckSteps(MPI_Comm comm, const Args& args) : args_(args) {
    int n = 0;
    check(MPI_Comm_size(comm, &n), "MPI_Comm_size");
    check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
    for (const auto& round : bruck::plan(n, rank_))
      steps_.push_back({round.send_to, round.recv_from, blocks_type(round.send_blocks), blocks_type(round.recv_blocks)});
  }
  // This rank's own block into its place in the receive buffer (before the first round).
  void place_own() const {
    const auto own = static_cast<std::size_t>(rank_);
    std::byte* mine = args_.recv + args_.recv_displs[own];
    if (args_.recv_counts[own] > 0 && mine != args_.send) std::memmove(mine, args_.send, args_.recv_counts[own]);
  }
  const std::vector<Step>& steps() const { return steps_; }

 private:
  // The listed blocks at their displacements in the receive buffer, as one datatype.
  Datatype blocks_type(const std::vector<int>& blocks) const {
    std::vector<int> lengths;
    std::vector<MPI_Aint> displs;
    for (int b : blocks) {
      const auto j = static_cast<std::size_t>(b);
      lengths.push_back(mpi_count(args_.recv_counts[j], "bruck block length"));
      displs.push_back(static_cast<MPI_Aint>(args_.recv_displs[j]));
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    check(MPI_Type_create_hindexed(static_cast<int>(blocks.size()), lengths.data(), displs.data(), MPI_BYTE, &t),
          "MPI_Type_create_hindexed");
    return Datatype::commit(t);
  }

  const Args& args_;
  int rank_ = 0;
  std::vector<Step> steps_;
};

class BruckRunner final : public Runner {
 public:
  BruckRunner(MPI_Comm comm, const Args& args) : comm_(comm), args_(args), plan_(comm, args) {}
  void run() override {
    plan_.place_own();
    for (const auto& s : plan_.steps())
      check(MPI_Sendrecv(args_.recv, 1, s.send_type.get(), s.to, BruckSteps::kTag, args_.recv, 1, s.recv_type.get(),
                         s.from, BruckSteps::kTag, comm_, MPI_STATUS_IGNORE),
            "MPI_Sendrecv");
  }

 private:
  MPI_Comm comm_;
  const Args& args_;
  BruckSteps plan_;
};

// The same rounds, each its receive and its send (MPI_Irecv / MPI_Isend, or MPI_Recv_init /
// MPI_Send_init built once): a round starts when the one before completed, so what it sends
// has arrived.
class BruckStarted final : public StartedRunner {
 public:
  BruckStarted(MPI_Comm comm, const Args& args, CallForm form, const Capabilities& caps)
      : plan_(comm, args), rounds_(form, caps) {
    rounds_.next_round([this] { plan_.place_own(); });
    bool first = true;
    for (const auto& s : plan_.steps()) {
      if (!std::exchange(first, false)) rounds_.next_round();
      // the result buffer read at build or post time (started_rounds.hpp)
      rounds_.recv([&args] { return static_cast<void*>(args.recv); }, [] { return 1; }, s.recv_type.get(), s.from,
                   BruckSteps::kTag, comm);
      rounds_.send([&args] { return static_cast<const void*>(args.recv); }, [] { return 1; }, s.send_type.get(), s.to,
                   BruckSteps::kTag, comm);
    }
  }
  void start() override { rounds_.start(); }
  void wait() override { rounds_.wait(); }

 private:
  BruckSteps plan_;        // the datatypes live as long as the requests that use them
  StartedRounds rounds_;  // last: its requests read the members above
};

// One registration per collective: bruck of intra-allgather and of intra-allgatherv.
template <Collective C>
class Bruck final : public IntraAlgorithm {
 public:
  Bruck()
      : IntraAlgorithm({"bruck", C, Topology::FullyConnected, Kind::Baseline,
                        "Bruck et al., IEEE TPDS 8(11) 1997, one-port concatenation; performance-guideline mock-up",
                        "ceil(log2 n) alpha + (K - k) beta (equal blocks)",
                        {{"native"}, "MPI_Allgather(v) <= Bruck's concatenation by MPI_Sendrecv rounds"}}) {}
  Cost cost(const Shape& s) const override {
    const auto t = bruck::cost_terms(s.blocks);
    return {t.rounds, t.bytes};
  }
  std::unique_ptr<Runner> prepare(MPI_Comm comm, const Args& args) const override {
    return std::make_unique<BruckRunner>(comm, args);
  }
  std::vector<CallForm> calls() const override { return every_call_form(); }
  std::unique_ptr<Runner> prepare_call(MPI_Comm comm, const Args& args, CallForm form,
                                       const Capabilities& caps) const override {
    if (form == CallForm::Blocking) return prepare(comm, args);
    return std::make_unique<BruckStarted>(comm, args, form, caps);
  }
};

using BruckAllgather = Bruck<Collective::IntraAllgather>;
using BruckAllgatherv = Bruck<Collective::IntraAllgatherv>;
COLLREPRO_REGISTER(BruckAllgather);
COLLREPRO_REGISTER(BruckAllgatherv);

}  // namespace
}  // namespace collrepro::intra
