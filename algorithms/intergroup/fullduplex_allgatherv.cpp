// fullduplex-allgatherv, fullduplex-allgatherv-ordered, fullduplex-allgatherv-ring: full-duplex
// inter-group Allgatherv with a global byte partition. Details: docs/algorithms/fullduplex-allgatherv.md,
// docs/algorithms/fullduplex-allgatherv-ordered.md and docs/algorithms/fullduplex-allgatherv-ring.md.
//
// Source: seed 001 §4.1, Algorithm 2 (listing repaired and exact partition in
//   docs/algorithms/fullduplex-allgatherv.md); the receive order of §4.1 for the `-ordered` variant;
//   for the `-ring` variant (collrepro, issue 39) the group phase is the project's segmented ring
//   Allgatherv (algorithms/intra/segmented_ring.cpp) instead of the library's MPI_Allgatherv.
// Idea: the K_A bytes of group A's blocks, indexed globally in rank order, are cut into q
//   balanced chunks, one per b; likewise K_B into p chunks, one per a. A process whose
//   block overlaps several chunks sends one piece to each (a multi-target sender; targets
//   ascending). After the exchange each process holds one chunk, and an intra-group
//   Allgatherv of the chunks yields the result in rank order.
// Run time work: Allreduce(SUM) and Exscan of the local sizes (a process knows only the
//   remote sizes, from its recvcounts), then the exchange, then the Allgatherv. Everything
//   that depends on the remote sizes alone (receives, final counts, the ring's datatypes) is
//   planned in prepare().
// Cost (Theorem 3, Eq. 4): (log p + log q + 2 + max(ceil(K_A/q), ..) + log) ~
//   (2 log max(p,q) + 2) t_s + (M + max(max k_A, max k_B)) t_w, M = max(K_A, K_B).
//   `-ring`: the group Allgatherv's log max(p,q) t_s + M t_w replaced by the larger of the two
//   groups' segmented ring terms (segmented_ring::cost_terms of the chunks: at most 2n - 3 steps).
// Plan: fullduplex_allgatherv_plan.cpp (pure, collplan); the ring's: segmented_ring_plan.cpp.
//   Executors: exchange_executor.cpp; intra/segmented_ring.cpp (the `-ring` group phase).
// Phases (timing.phases): offsets (the Allreduce and Exscan of the block sizes), exchange,
//   group-allgatherv.
// Call forms: blocking; nonblocking and persistent for fullduplex-allgatherv and `-ring` (the
//   phases as rounds of started_rounds.hpp; `-ordered` is blocking only, its receive order being
//   a blocking call's): MPI_Iallreduce / MPI_Iexscan of the sizes at each nonblocking start, or
//   the offsets computed once at init when persistent (the sizes are fixed then); the exchange's
//   MPI_Isend / MPI_Irecv or MPI_Send_init / MPI_Recv_init; the library's Iallgatherv or persistent
//   Allgatherv, or (`-ring`) each ring step as a round of point-to-point requests.
// Cases: any p, q >= 1, any sizes including zeros, a single huge block, K < n (empty
//   chunks), and arbitrary displs with gaps (the result is staged and copied when the
//   displs are not contiguous).
// Errata handled (docs/errata.md): r_A/r_B use K'_A/K'_B; the lower chunk bound has the factor
//   i; line 23 sends to a_k; the lost lines 18-19 restored by symmetry. Checked by
//   unit.FullDuplexAllgathervPlan.* (the corrected partition tiles every byte once).
#include <cstdint>
#include <optional>

#include "collrepro/intergroup.hpp"
#include "collrepro/segmented_ring_plan.hpp"
#include "intergroup/costs.hpp"
#include "intergroup/exchange_executor.hpp"
#include "intra/segmented_ring.hpp"

namespace collrepro::inter {
namespace {

// The exchange's receive order and the group phase's Allgatherv of each registered variant.
struct Variant {
  bool ordered = false;  // seed 001's receive order (blocking receives)
  bool ring = false;     // the segmented ring instead of MPI_Allgatherv
};

// What every call plans from the remote sizes alone (they are my recvcounts), before any
// message: the exchange's receives, the group phase's counts and displacements, the ring's steps.
struct RemotePlan {
  RemotePlan(const GroupPair& pair, const Args& args, Variant variant)
      : recvs(plan_allgatherv_recvs(pair.local_rank(), pair.local_size(), args.recv_counts, variant.ordered)) {
    std::vector<std::size_t> c, d;
    plan_allgatherv_gather(pair.local_size(), args.recv_total(), c, d);
    counts = to_int_counts(c, "Allgatherv count");
    displs = to_int_counts(d, "Allgatherv displacement");
    if (variant.ring) ring.emplace(pair.local(), c, d);
  }
  std::vector<Transfer> recvs;
  std::vector<int> counts, displs;
  std::optional<intra::SegmentedRingExecutor> ring;
};

// My sends from the offsets the Allreduce and Exscan of the block sizes gave.
std::vector<Transfer> sends_of(const GroupPair& pair, std::uint64_t mine, std::uint64_t total, std::uint64_t prefix) {
  if (pair.local_rank() == 0) prefix = 0;  // Exscan leaves rank 0's undefined
  return plan_allgatherv_sends(prefix, mine, total, pair.remote_size());
}

class PartitionedAllgatherv final : public Runner {
 public:
  PartitionedAllgatherv(const GroupPair& pair, const Args& args, Variant variant)
      : pair_(pair), args_(args), stage_(args), executor_(pair, variant.ordered), plan_(pair, args, variant) {}

  void run() override {
    std::uint64_t mine = args_.send_bytes, total = 0, prefix = 0;
    check(MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, pair_.local()), "MPI_Allreduce");
    check(MPI_Exscan(&mine, &prefix, 1, MPI_UINT64_T, MPI_SUM, pair_.local()), "MPI_Exscan");
    const auto sends = sends_of(pair_, mine, total, prefix);
    end_phase();
    executor_.exchange(args_.send, sends, stage_.data(), plan_.recvs);
    end_phase();
    if (plan_.ring)
      plan_.ring->run(stage_.data());
    else
      executor_.gather(stage_.data(), plan_.counts, plan_.displs);
    stage_.finish();
    end_phase();
  }

  std::vector<std::string> phases() const override { return {"offsets", "exchange", "group-allgatherv"}; }

 private:
  const GroupPair& pair_;
  const Args& args_;
  ResultStage stage_;
  ExchangeExecutor executor_;
  RemotePlan plan_;
};

// The nonblocking and persistent calls (not `-ordered`: its receive order is a blocking call's):
// the offsets, the exchange and the group phase as rounds of started_rounds.hpp.
//   nonblocking: MPI_Iallreduce and MPI_Iexscan of the block sizes at each start; the sends are
//                planned as the exchange round starts (one per remote chunk my block overlaps).
//   persistent:  the sizes are fixed at init, so the offsets are computed there (MPI_Allreduce,
//                MPI_Exscan) and the sends built once (MPI_Send_init).
// The group phase is the library's Allgatherv, or each segmented ring step as a round.
class PartitionedAllgathervStarted final : public StartedRunner {
 public:
  PartitionedAllgathervStarted(const GroupPair& pair, const Args& args, Variant variant, CallForm form,
                               const Capabilities& caps)
      : pair_(pair), stage_(args), mine_(args.send_bytes), plan_(pair, args, {.ordered = false, .ring = variant.ring}),
        sends_(static_cast<std::size_t>(pair.remote_size())), rounds_(form, caps) {
    const ExchangeExecutor executor(pair, /*ordered=*/false);
    const bool persistent = form == CallForm::Persistent;
    if (persistent) {  // the sizes are fixed at init: the offsets once, here
      check(MPI_Allreduce(&mine_, &total_, 1, MPI_UINT64_T, MPI_SUM, pair.local()), "MPI_Allreduce");
      check(MPI_Exscan(&mine_, &prefix_, 1, MPI_UINT64_T, MPI_SUM, pair.local()), "MPI_Exscan");
      plan_sends();
    } else {
      rounds_.next_round();
      rounds_.iallreduce_sum(&mine_, &total_, pair.local(), "block sizes");
      rounds_.iexscan_sum(&mine_, &prefix_, pair.local(), "block offsets");
    }
    executor.exchange(rounds_, persistent ? std::function<void()>() : [this] { plan_sends(); }, send_of(args), sends_,
                      stage_.at(), plan_.recvs);
    if (plan_.ring)
      plan_.ring->add_rounds(rounds_, stage_.at());
    else
      executor.gather(rounds_, stage_.at(), plan_.counts, plan_.displs);
    rounds_.next_round([this] { stage_.finish(); });
  }

  void start() override { rounds_.start(); }
  void wait() override { rounds_.wait(); }

 private:
  // sends_[j]: my piece for remote rank j (bytes 0: none), from the offsets.
  void plan_sends() {
    for (Transfer& t : sends_) t = {};
    for (const Transfer& t : sends_of(pair_, mine_, total_, prefix_)) sends_[static_cast<std::size_t>(t.peer)] = t;
  }

  const GroupPair& pair_;
  ResultStage stage_;
  std::uint64_t mine_ = 0, total_ = 0, prefix_ = 0;
  RemotePlan plan_;
  std::vector<Transfer> sends_;
  StartedRounds rounds_;  // last: its requests read the members above
};

// The larger of the two groups' segmented ring terms for the group phase: group A gathers K_B
// in p balanced chunks, group B K_A in q.
Cost ring_group_phase(const Shape& s) {
  Cost worst;
  for (int side = 0; side < 2; ++side) {
    std::vector<std::size_t> counts, displs;
    plan_allgatherv_gather(s.size(side), s.total(1 - side), counts, displs);
    const auto t = intra::segmented_ring::cost_terms(counts, intra::segmented_ring::default_segment(counts));
    worst.alpha_terms = std::max(worst.alpha_terms, t.rounds);
    worst.beta_bytes = std::max(worst.beta_bytes, t.bytes);
  }
  return worst;
}

const char* source_of(Variant v) {
  if (v.ring) return "seed 001 §4.1, Algorithm 2 (all receives posted at once), group phase by collrepro's segmented ring";
  return v.ordered ? "seed 001 §4.1, Algorithm 2, with its receive order"
                   : "seed 001 §4.1, Algorithm 2 (all receives posted at once)";
}

const char* cost_of(Variant v) {
  return v.ring ? "(log max(p,q) + 2 + R) t_s + (max(max k_A, max k_B) + W) t_w, R, W: the segmented ring's "
                  "steps and step bytes of the larger group phase"
                : "(2 log max(p,q) + 2) t_s + (M + max(max k_A, max k_B)) t_w, M = max(K_A, K_B)";
}

class FullDuplexAllgatherv : public InterAlgorithm {
 public:
  FullDuplexAllgatherv(std::string name, Variant variant)
      : InterAlgorithm({std::move(name), Collective::Allgatherv, Topology::FullyConnected, Kind::Proposed, source_of(variant),
                        cost_of(variant)}),
        variant_(variant) {}

  Support supports(const Shape&, PairMode) const override { return Support::yes(); }

  Cost cost(const Shape& s) const override {
    const double log_max = log2_rounds(static_cast<std::size_t>(std::max(s.p, s.q)));
    const double exchange = bytes(std::max(s.max_block(0), s.max_block(1)));
    if (!variant_.ring) return {2 * log_max + 2, transfer_bound(s) + exchange};
    const Cost group = ring_group_phase(s);
    return {log_max + 2 + group.alpha_terms, exchange + group.beta_bytes};
  }

  std::unique_ptr<Runner> prepare(const GroupPair& pair, const Args& args) const override {
    return std::make_unique<PartitionedAllgatherv>(pair, args, variant_);
  }

  std::vector<CallForm> calls() const override {
    if (variant_.ordered) return {CallForm::Blocking};
    return every_call_form();
  }
  std::unique_ptr<Runner> prepare_call(const GroupPair& pair, const Args& args, CallForm form,
                                       const Capabilities& caps) const override {
    if (form == CallForm::Blocking) return prepare(pair, args);
    return std::make_unique<PartitionedAllgathervStarted>(pair, args, variant_, form, caps);
  }

 private:
  Variant variant_;
};

struct PostAll final : FullDuplexAllgatherv { PostAll() : FullDuplexAllgatherv("fullduplex-allgatherv", {}) {} };
struct Ordered final : FullDuplexAllgatherv {
  Ordered() : FullDuplexAllgatherv("fullduplex-allgatherv-ordered", {.ordered = true}) {}
};
struct Ring final : FullDuplexAllgatherv {
  Ring() : FullDuplexAllgatherv("fullduplex-allgatherv-ring", {.ring = true}) {}
};

COLLREPRO_REGISTER(PostAll);
COLLREPRO_REGISTER(Ordered);
COLLREPRO_REGISTER(Ring);

}  // namespace
}  // namespace collrepro::inter
