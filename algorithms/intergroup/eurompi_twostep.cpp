// eurompi-twostep: the two-step full-duplex inter-group Allgather of EuroMPI'18, the
// "EuroMPI" series of seed 001 Fig. 4. Details: docs/algorithms/eurompi-twostep.md.
//
// Source: Kang et al., EuroMPI'18, Algorithm 2, as described in seed 001 §4 ("processes in
//   group A gather all messages from group B via two steps of intragroup Allgather") and
//   reconstructed from the authors' description (docs/algorithms/eurompi-twostep.md).
// Idea: A -> B is Algorithm 1 (fullduplex-allgather). B -> A: the larger group A is cut
//   into g = floor(p/q) contiguous rank groups G_t of q + e or q + e + 1 processes; b_j
//   sends segment t of its block (ceil(k_B/g) bytes) to the member at offset j of G_t.
//   Step 1: the g members with the same offset j (one per rank group) Allgatherv the
//   segments of m_{B,j}. Step 2: each rank group Allgathervs the whole blocks (members at
//   offsets >= q, the remainder processes, contribute nothing). B finishes as in
//   Algorithm 1.
// Cost: (ceil(p/q) + log g + log(q + e + 1)) t_s + (max(ceil(p/q) k_A, k_B) +
//   max((g - 1) ceil(k_B/g) + (q - 1) k_B, (q - 1) ceil(p/q) k_A)) t_w, the same transfer
//   time as Algorithm 1 in the homogeneous model (§4).
// Plan: eurompi_twostep_plan.cpp (pure, collplan). Executor: exchange_executor.cpp and the
//   two Allgatherv steps in this file.
// Phases (timing.phases): exchange, step-1, step-2 (group B runs its one Allgatherv as
//   step 1; its step 2 is empty).
// Cases: every shape (roles by size; on p = q it is Algorithm 1). Deviation: for
//   k_B < g the authors' code switches to a "crawling" scheme; here some segments are
//   simply empty, which is correct but may time differently.
// Errata: none checked (the EuroMPI'18 listing is not part of seed 001).
// Setup: the two sub-communicators are split in prepare(), outside the timed region (the
//   authors created them inside it).
// Call forms: blocking; nonblocking and persistent (the exchange and the two steps as three
//   rounds of started_rounds.hpp: MPI_Isend / MPI_Irecv then MPI_Iallgather(v) on each
//   sub-communicator, or MPI_Send_init / MPI_Recv_init and the library's persistent
//   Allgather(v) built at init).
#include <cmath>

#include "collrepro/intergroup.hpp"
#include "intergroup/costs.hpp"
#include "intergroup/exchange_executor.hpp"

namespace collrepro::inter {
namespace {

int color_or_undefined(int c) { return c < 0 ? MPI_UNDEFINED : c; }

class TwoStepAllgather final : public Runner {
 public:
  TwoStepAllgather(const GroupPair& pair, const Args& args)
      : args_(args), role_a_(pair.role() == Role::A),
        plan_(plan_eurompi_twostep(pair.local_size(), pair.remote_size(), pair.local_rank(), args.send_bytes,
                                   args.recv_block())),
        executor_(pair, /*ordered=*/false), local_(pair.local()) {
    if (role_a_) {
      offset_comm_ = Comm::split(pair.local(), color_or_undefined(plan_.offset_color), plan_.offset_key);
      rank_group_comm_ = Comm::split(pair.local(), plan_.rank_group_color, plan_.rank_group_key);
      step1_ = {to_int_counts(plan_.offset_counts, "count"), to_int_counts(plan_.offset_displs, "displacement")};
      step2_ = {to_int_counts(plan_.rank_group_counts, "count"), to_int_counts(plan_.rank_group_displs, "displacement")};
    } else {
      step1_ = {to_int_counts(plan_.exchange.gather_counts, "count"),
                to_int_counts(plan_.exchange.gather_displs, "displacement")};
    }
  }

  void run() override {
    executor_.exchange(args_.send, plan_.exchange.sends, args_.recv, plan_.exchange.recvs);
    end_phase();
    if (!role_a_) {  // group B's one Allgatherv is its step 1; its step 2 is empty
      allgatherv_in_place(local_, args_.recv, step1_.counts, step1_.displs, "MPI_Allgatherv (group B)");
      end_phase();
      end_phase();
      return;
    }
    if (offset_comm_)
      allgatherv_in_place(offset_comm_.get(), args_.recv, step1_.counts, step1_.displs, "MPI_Allgatherv (step 1)");
    end_phase();
    allgatherv_in_place(rank_group_comm_.get(), args_.recv, step2_.counts, step2_.displs, "MPI_Allgatherv (step 2)");
    end_phase();
  }

  std::vector<std::string> phases() const override { return {"exchange", "step-1", "step-2"}; }

  const TwoStepPlan& plan() const { return plan_; }
  // Step 1 and step 2 as the next rounds of a nonblocking or persistent call (group B: one round).
  void steps(StartedRounds& rounds, const ResultAt& result) const {
    rounds.next_round();
    if (!role_a_) {
      rounds.allgatherv_in_place(local_, result, step1_.counts, step1_.displs, "group B");
      return;
    }
    if (offset_comm_) rounds.allgatherv_in_place(offset_comm_.get(), result, step1_.counts, step1_.displs, "step 1");
    rounds.next_round();
    rounds.allgatherv_in_place(rank_group_comm_.get(), result, step2_.counts, step2_.displs, "step 2");
  }

 private:
  struct Layout {
    std::vector<int> counts, displs;
  };
  const Args& args_;
  bool role_a_;
  TwoStepPlan plan_;
  ExchangeExecutor executor_;
  MPI_Comm local_;
  Comm offset_comm_, rank_group_comm_;
  Layout step1_, step2_;
};

// The nonblocking and persistent calls: the same plan and sub-communicators, the exchange and the
// two steps as three rounds of started_rounds.hpp (group B's one Allgatherv is its second round).
class TwoStepAllgatherStarted final : public StartedRunner {
 public:
  TwoStepAllgatherStarted(const GroupPair& pair, const Args& args, CallForm form, const Capabilities& caps)
      : blocking_(pair, args), rounds_(form, caps) {
    const ExchangeExecutor executor(pair, /*ordered=*/false);
    const TwoStepPlan& plan = blocking_.plan();
    executor.exchange(rounds_, send_of(args), plan.exchange.sends, recv_of(args), plan.exchange.recvs);
    blocking_.steps(rounds_, recv_of(args));
  }

  void start() override { rounds_.start(); }
  void wait() override { rounds_.wait(); }

 private:
  TwoStepAllgather blocking_;  // the plan, communicators and layouts (its run() is not used)
  StartedRounds rounds_;       // last: its requests read the members above
};

class EuroMpiTwoStep final : public InterAlgorithm {
 public:
  EuroMpiTwoStep()
      : InterAlgorithm({"eurompi-twostep", Collective::Allgather, Topology::FullyConnected, Kind::Baseline,
                        "EuroMPI'18 Algorithm 2 (two-step), per seed 001 §4 and Fig. 4",
                        "(ceil(p/q) + log g + log(q + e + 1)) t_s + (M + k_B) t_w"}) {}

  Support supports(const Shape&, PairMode) const override { return Support::yes(); }

  Cost cost(const Shape& s) const override {
    const std::size_t big = std::max(s.p, s.q), small = std::min(s.p, s.q), g = big / small;
    const double k_big = bytes(s.max_block(s.p >= s.q ? 0 : 1)), k_small = bytes(s.max_block(s.p >= s.q ? 1 : 0));
    const double rounds = static_cast<double>((big + small - 1) / small);
    const double segment = std::ceil(k_small / static_cast<double>(g));
    const double exchange = std::max(rounds * k_big, k_small);
    const double gathers = std::max(static_cast<double>(g - 1) * segment + static_cast<double>(small - 1) * k_small,
                                    static_cast<double>(small - 1) * rounds * k_big);
    return {rounds + log2_rounds(g) + log2_rounds(small + (big % small) / g + 1), exchange + gathers};
  }

  std::unique_ptr<Runner> prepare(const GroupPair& pair, const Args& args) const override {
    return std::make_unique<TwoStepAllgather>(pair, args);
  }

  std::vector<CallForm> calls() const override { return every_call_form(); }
  std::unique_ptr<Runner> prepare_call(const GroupPair& pair, const Args& args, CallForm form,
                                       const Capabilities& caps) const override {
    if (form == CallForm::Blocking) return prepare(pair, args);
    return std::make_unique<TwoStepAllgatherStarted>(pair, args, form, caps);
  }
};

COLLREPRO_REGISTER(EuroMpiTwoStep);

}  // namespace
}  // namespace collrepro::inter
