// fullduplex-allgather: full-duplex inter-group Allgather with message segmentation.
// Details: docs/algorithms/fullduplex-allgather.md.
//
// Source: Kang, Träff, Al-Bahrani, Agrawal, Choudhary, Liao, "Scalable Algorithms for MPI
//   Intergroup Allgather and Allgatherv", Parallel Computing 2019 (seed 001), §4,
//   Algorithm 1; non-divisible cases per §4 prose (docs/algorithms/fullduplex-allgather.md).
// Idea: the larger group A (p processes) is cut into q rank-contiguous subgroups s_j of
//   ceil(p/q) or floor(p/q) processes; b_j exchanges with every member of s_j: each
//   a in s_j sends b_j its whole block, b_j sends each a a balanced segment of its own
//   block. Then one intra-group Allgatherv per group assembles the result in rank order,
//   straight into the user's receive buffer, with no reordering.
// Cost (Theorem 1, q | p and (p/q) | k_B): (ceil(p/q) + log p) t_s + (M + k_B) t_w,
//   M = max(p k_A, q k_B). The registry reports
//   (ceil(p/q) + ceil(log2 max(p,q))) t_s + (max(ceil(p/q) k_A, ceil(k_B/floor(p/q)))
//   + max((p-1) ceil(k_B / floor(p/q)), (q-1) ceil(p/q) k_A)) t_w.
// Plan: fullduplex_allgather_plan.cpp (pure, collplan). Executor: exchange_executor.cpp.
// Phases (timing.phases): exchange, group-allgatherv.
// Call forms: blocking; nonblocking and persistent (the same two phases as two rounds of
//   started_rounds.hpp, built by the executor: MPI_Isend / MPI_Irecv then MPI_Iallgather(v),
//   or MPI_Send_init / MPI_Recv_init and the library's persistent Allgather(v) built at init).
// Cases: any p, q >= 1 (roles by size: the larger group takes role A; on p = q both do and
//   a_i <-> b_i swap whole blocks); q not dividing p; k_B not divisible by the subgroup
//   size; k_B smaller than the subgroup (empty segments, never sent); k_A = 0 or k_B = 0
//   (half-duplex); both zero.
// Gaps filled (docs/errata.md): the text of the paper we worked from lacks the Algorithm 1
//   listing (rebuilt from the §4 prose), and the segment rule for k_B not divisible by the
//   subgroup size is left open; we use balanced segments, as the authors' code does.
#include "collrepro/intergroup.hpp"
#include "intergroup/costs.hpp"
#include "intergroup/exchange_executor.hpp"

namespace collrepro::inter {
namespace {

ExchangePlan plan_for(const GroupPair& pair, const Args& args) {
  return plan_fullduplex_allgather(pair.local_size(), pair.remote_size(), pair.local_rank(), args.send_bytes,
                                   args.recv_block());
}

class SegmentedAllgather final : public Runner {
 public:
  SegmentedAllgather(const GroupPair& pair, const Args& args)
      : args_(args),
        plan_(plan_for(pair, args)),
        counts_(to_int_counts(plan_.gather_counts, "Allgatherv count")),
        displs_(to_int_counts(plan_.gather_displs, "Allgatherv displacement")),
        executor_(pair, /*ordered=*/false) {}

  void run() override {
    executor_.exchange(args_.send, plan_.sends, args_.recv, plan_.recvs);
    end_phase();
    executor_.gather(args_.recv, counts_, displs_);
    end_phase();
  }

  std::vector<std::string> phases() const override { return {"exchange", "group-allgatherv"}; }

 private:
  const Args& args_;
  ExchangePlan plan_;
  std::vector<int> counts_, displs_;
  ExchangeExecutor executor_;
};

// The nonblocking and persistent calls: the same plan, its two phases as two rounds.
class SegmentedAllgatherStarted final : public StartedRunner {
 public:
  SegmentedAllgatherStarted(const GroupPair& pair, const Args& args, CallForm form, const Capabilities& caps)
      : plan_(plan_for(pair, args)),
        counts_(to_int_counts(plan_.gather_counts, "Allgatherv count")),
        displs_(to_int_counts(plan_.gather_displs, "Allgatherv displacement")),
        rounds_(form, caps) {
    const ExchangeExecutor executor(pair, /*ordered=*/false);
    executor.exchange(rounds_, send_of(args), plan_.sends, recv_of(args), plan_.recvs);
    executor.gather(rounds_, recv_of(args), counts_, displs_);
  }

  void start() override { rounds_.start(); }
  void wait() override { rounds_.wait(); }

 private:
  ExchangePlan plan_;
  std::vector<int> counts_, displs_;
  StartedRounds rounds_;  // last: its requests read the members above
};

class FullDuplexAllgather final : public InterAlgorithm {
 public:
  FullDuplexAllgather()
      : InterAlgorithm({"fullduplex-allgather", Collective::Allgather, Topology::FullyConnected, Kind::Proposed,
                        "seed 001 §4, Algorithm 1 (message segmentation)",
                        "(ceil(p/q) + log p) t_s + (M + k_B) t_w, M = max(p k_A, q k_B)"}) {}

  Support supports(const Shape&, PairMode) const override { return Support::yes(); }

  Cost cost(const Shape& s) const override {
    const std::size_t big = std::max(s.p, s.q), small = std::min(s.p, s.q);
    const std::size_t k_big = s.max_block(s.p >= s.q ? 0 : 1), k_small = s.max_block(s.p >= s.q ? 1 : 0);
    const double rounds = static_cast<double>((big + small - 1) / small);
    const double segment = static_cast<double>((k_small + big / small - 1) / (big / small));
    const double exchange = std::max(rounds * bytes(k_big), segment);
    const double gathers = std::max(static_cast<double>(big - 1) * segment, static_cast<double>(small - 1) * rounds * bytes(k_big));
    return {rounds + log2_rounds(big), exchange + gathers};
  }

  std::unique_ptr<Runner> prepare(const GroupPair& pair, const Args& args) const override {
    return std::make_unique<SegmentedAllgather>(pair, args);
  }

  std::vector<CallForm> calls() const override { return every_call_form(); }
  std::unique_ptr<Runner> prepare_call(const GroupPair& pair, const Args& args, CallForm form,
                                       const Capabilities& caps) const override {
    if (form == CallForm::Blocking) return prepare(pair, args);
    return std::make_unique<SegmentedAllgatherStarted>(pair, args, form, caps);
  }
};

COLLREPRO_REGISTER(FullDuplexAllgather);

}  // namespace
}  // namespace collrepro::inter
