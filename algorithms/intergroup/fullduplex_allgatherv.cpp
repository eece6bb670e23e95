// fullduplex-allgatherv, fullduplex-allgatherv-ordered: full-duplex inter-group
// Allgatherv with a global byte partition. Details: docs/algorithms/fullduplex-allgatherv.md
// and docs/algorithms/fullduplex-allgatherv-ordered.md.
//
// Source: seed 001 §4.1, Algorithm 2 (listing repaired and exact partition in
//   docs/algorithms/fullduplex-allgatherv.md); the receive order of §4.1 for the `-ordered` variant.
// Idea: the K_A bytes of group A's blocks, indexed globally in rank order, are cut into q
//   balanced chunks, one per b; likewise K_B into p chunks, one per a. A process whose
//   block overlaps several chunks sends one piece to each (a multi-target sender; targets
//   ascending). After the exchange each process holds one chunk, and an intra-group
//   Allgatherv of the chunks yields the result in rank order.
// Run time work: Allreduce(SUM) and Exscan of the local sizes (a process knows only the
//   remote sizes, from its recvcounts), then the exchange, then the Allgatherv. Everything
//   that depends on the remote sizes alone (receives, final counts) is planned in prepare().
// Cost (Theorem 3, Eq. 4): (log p + log q + 2 + max(ceil(K_A/q), ..) + log) ~
//   (2 log max(p,q) + 2) t_s + (M + max(max k_A, max k_B)) t_w, M = max(K_A, K_B).
// Plan: fullduplex_allgatherv_plan.cpp (pure, collplan). Executor: exchange_executor.cpp.
// Phases (timing.phases): offsets (the Allreduce and Exscan of the block sizes), exchange,
//   group-allgatherv.
// Cases: any p, q >= 1, any sizes including zeros, a single huge block, K < n (empty
//   chunks), and arbitrary displs with gaps (the result is staged and copied when the
//   displs are not contiguous).
// Errata handled (docs/errata.md): r_A/r_B use K'_A/K'_B; the lower chunk bound has the factor
//   i; line 23 sends to a_k; the lost lines 18-19 restored by symmetry. Checked by
//   unit.FullDuplexAllgathervPlan.* (the corrected partition tiles every byte once).
#include <cstdint>

#include "collrepro/intergroup.hpp"
#include "intergroup/costs.hpp"
#include "intergroup/exchange_executor.hpp"

namespace collrepro::inter {
namespace {

class PartitionedAllgatherv final : public Runner {
 public:
  PartitionedAllgatherv(const GroupPair& pair, const Args& args, bool ordered)
      : pair_(pair), args_(args), stage_(args), executor_(pair, ordered),
        recvs_(plan_allgatherv_recvs(pair.local_rank(), pair.local_size(), args.recv_counts, ordered)) {
    std::vector<std::size_t> counts, displs;
    plan_allgatherv_gather(pair.local_size(), args.recv_total(), counts, displs);
    counts_ = to_int_counts(counts, "Allgatherv count");
    displs_ = to_int_counts(displs, "Allgatherv displacement");
  }

  void run() override {
    std::uint64_t mine = args_.send_bytes, total = 0, prefix = 0;
    check(MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, pair_.local()), "MPI_Allreduce");
    check(MPI_Exscan(&mine, &prefix, 1, MPI_UINT64_T, MPI_SUM, pair_.local()), "MPI_Exscan");
    if (pair_.local_rank() == 0) prefix = 0;  // Exscan leaves rank 0 undefined
    const auto sends = plan_allgatherv_sends(prefix, mine, total, pair_.remote_size());
    end_phase();
    executor_.exchange(args_.send, sends, stage_.data(), recvs_);
    end_phase();
    executor_.gather(stage_.data(), counts_, displs_);
    stage_.finish();
    end_phase();
  }

  std::vector<std::string> phases() const override { return {"offsets", "exchange", "group-allgatherv"}; }

 private:
  const GroupPair& pair_;
  const Args& args_;
  ResultStage stage_;
  ExchangeExecutor executor_;
  std::vector<Transfer> recvs_;
  std::vector<int> counts_, displs_;
};

class FullDuplexAllgatherv : public InterAlgorithm {
 public:
  FullDuplexAllgatherv(std::string name, bool ordered)
      : InterAlgorithm({std::move(name), Collective::Allgatherv, "fully-connected", Kind::Proposed,
                        ordered ? "seed 001 §4.1, Algorithm 2, with its receive order"
                                : "seed 001 §4.1, Algorithm 2 (all receives posted at once)",
                        "(2 log max(p,q) + 2) t_s + (M + max(max k_A, max k_B)) t_w, M = max(K_A, K_B)"}),
        ordered_(ordered) {}

  Support supports(const Shape&, PairMode) const override { return Support::yes(); }

  Cost cost(const Shape& s) const override {
    const double rounds = 2 * log2_rounds(static_cast<std::size_t>(std::max(s.p, s.q))) + 2;
    return {rounds, transfer_bound(s) + bytes(std::max(s.max_block(0), s.max_block(1)))};
  }

  std::unique_ptr<Runner> prepare(const GroupPair& pair, const Args& args) const override {
    return std::make_unique<PartitionedAllgatherv>(pair, args, ordered_);
  }

 private:
  bool ordered_;
};

struct PostAll final : FullDuplexAllgatherv { PostAll() : FullDuplexAllgatherv("fullduplex-allgatherv", false) {} };
struct Ordered final : FullDuplexAllgatherv { Ordered() : FullDuplexAllgatherv("fullduplex-allgatherv-ordered", true) {} };

COLLREPRO_REGISTER(PostAll);
COLLREPRO_REGISTER(Ordered);

}  // namespace
}  // namespace collrepro::inter
