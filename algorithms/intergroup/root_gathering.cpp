// root-gathering: the root-gathering baseline of production MPI libraries, emulated with
// intra-group collectives (library independent), for Allgather and Allgatherv, half- and
// full-duplex. Details: docs/algorithms/root-gathering.md.
//
// Source: seed 000 §III-A and §V (emulation); seed 001 §3.1 (Eqs. 1-2) and the library
//   code it describes (docs/algorithms/root-gathering.md; MPICH
//   MPIR_Allgather_inter_local_gather_remote_bcast, Open MPI mca_coll_inter_allgather_inter).
// Stages: (1) each group gathers its blocks at local rank 0 (MPI_Gather; for Allgatherv a
//   gather of the sizes first, since a process knows only the remote sizes); (2) the two
//   roots swap the aggregates with one MPI_Sendrecv (Open MPI's order; MPICH serialises
//   the two directions); (3) each root broadcasts the remote aggregate in its group
//   (MPI_Bcast). Directions with no data skip their stages.
// Cost: gather max((p-1) k_A, (q-1) k_B) + root exchange M + two concurrent broadcasts at
//   the scatter-allgather 2x: (3 log max(p,q) + 1) t_s + (max((p-1)k_A, (q-1)k_B) + 3M) t_w,
//   M = max(K_A, K_B); half-duplex: (log p + 1 + 2 log q) t_s + (4p - 1) k t_w (seed 000).
// Plan and executor: this file (three library collectives and one MPI_Sendrecv).
// Phases (timing.phases): gather, root-exchange, bcast.
// Cases: both GroupPair modes. Allgather counts each group's data in words of up to 8 bytes
//   (collrepro/words.hpp), so an aggregate may exceed 2 GiB (seed 000 at 1024 processes and
//   4 MiB: 768 x 4 MiB = 3 GiB at one root) up to 2^31 - 1 words. Allgatherv counts bytes: a
//   process knows only its own block of its group, so no wider word is agreed on, and each
//   group's aggregate must fit an int count (under 2 GiB).
// Errata: none in the algorithm; seed 000 calls the first stage an Allgather where MPICH
//   gathers (docs/algorithms/root-gathering.md).
// Guideline: also the mock-up of the inter-group Allgather(v) performance guideline, against
//   the native intercommunicator call (the registration below names it).
#include <cstring>
#include <numeric>
#include <string>

#include "collrepro/intergroup.hpp"
#include "collrepro/words.hpp"
#include "intergroup/costs.hpp"
#include "intergroup/exchange_executor.hpp"

namespace collrepro::inter {
namespace {

constexpr int kRootTag = 3103;

// The word size that counts one group's data: the widest that divides its (equal) Allgather
// blocks, bytes for Allgatherv, whose sizes a group's members do not all know.
std::size_t group_word(bool variable, std::size_t block) { return variable ? 1 : word_bytes(block); }

class RootGathering final : public Runner {
 public:
  RootGathering(const GroupPair& pair, const Args& args, bool variable)
      : pair_(pair), args_(args), variable_(variable), stage_(args), remote_total_(args.recv_total()),
        local_word_(group_word(variable, args.send_bytes)), remote_word_(group_word(variable, args.recv_block())) {
    if (is_root()) {
      local_counts_.resize(static_cast<std::size_t>(pair.local_size()), mpi_words(args.send_bytes, local_word_, "count"));
      local_displs_.resize(local_counts_.size());
    }
  }

  void run() override {
    const std::size_t local_total = gather_at_root();
    end_phase();
    exchange_roots(local_total);
    end_phase();
    if (remote_total_ > 0)
      check(MPI_Bcast(stage_.data(), mpi_words(remote_total_, remote_word_, "MPI_Bcast"), word_type(remote_word_), 0,
                      pair_.local()),
            "MPI_Bcast");
    stage_.finish();
    end_phase();
  }

  std::vector<std::string> phases() const override { return {"gather", "root-exchange", "bcast"}; }

 private:
  bool is_root() const { return pair_.local_rank() == 0; }

  // Returns the aggregate's size in bytes at the root (0 elsewhere).
  std::size_t gather_at_root() {
    const int mine = mpi_words(args_.send_bytes, local_word_, "MPI_Gatherv");
    if (variable_)
      check(MPI_Gather(&mine, 1, MPI_INT, local_counts_.data(), 1, MPI_INT, 0, pair_.local()), "MPI_Gather (sizes)");
    else if (mine == 0)
      return 0;  // an Allgather group sends equal blocks: nothing to gather
    std::size_t words = 0;
    if (is_root()) {
      for (std::size_t r = 0; r < local_counts_.size(); ++r) {
        local_displs_[r] = mpi_words(words * local_word_, local_word_, "MPI_Gatherv displacement");
        words += static_cast<std::size_t>(local_counts_[r]);
      }
      if (aggregate_.size() < words * local_word_) aggregate_ = Buffer(words * local_word_);
    }
    const MPI_Datatype type = word_type(local_word_);
    check(MPI_Gatherv(args_.send, mine, type, aggregate_.data(), local_counts_.data(), local_displs_.data(), type, 0,
                      pair_.local()),
          "MPI_Gatherv");
    return words * local_word_;
  }

  void exchange_roots(std::size_t local_total) {
    if (!is_root()) return;
    check(MPI_Sendrecv(aggregate_.data(), mpi_words(local_total, local_word_, "MPI_Sendrecv"), word_type(local_word_),
                       pair_.remote(0), kRootTag, stage_.data(),
                       mpi_words(remote_total_, remote_word_, "MPI_Sendrecv"), word_type(remote_word_),
                       pair_.remote(0), kRootTag, pair_.p2p(), MPI_STATUS_IGNORE),
          "MPI_Sendrecv (roots)");
  }

  const GroupPair& pair_;
  const Args& args_;
  bool variable_;
  ResultStage stage_;
  std::size_t remote_total_;
  std::size_t local_word_, remote_word_;  // bytes per counted element of each group's data
  std::vector<int> local_counts_, local_displs_;
  Buffer aggregate_;  // the local group's blocks at the root (folded in simulation when large)
};

class RootGatheringAlgorithm : public InterAlgorithm {
 public:
  explicit RootGatheringAlgorithm(Collective c)
      : InterAlgorithm({"root-gathering", c, Topology::FullyConnected, Kind::Baseline,
                        "seed 000 §III-A/§V and seed 001 §3.1: local gather, root exchange, local broadcast (emulated)",
                        "(3 log max(p,q) + 1) t_s + (max((p-1)k_A, (q-1)k_B) + 3 max(K_A, K_B)) t_w",
                        {{"native"}, "inter MPI_Allgather(v) <= intra-group gather + exchange + bcast"}}) {}

  Support supports(const Shape& s, PairMode) const override {
    const bool variable = info().collective == Collective::Allgatherv;
    for (int side = 0; side < 2; ++side) {
      const std::size_t word = group_word(variable, s.max_block(side));
      if (!word_count(s.total(side), word))
        return Support::no("a group's aggregate of " + std::to_string(s.total(side)) + " bytes is more than one " +
                           "MPI_Gatherv/MPI_Bcast can count (an int of " + std::to_string(word) + "-byte " +
                           (variable ? "elements: Allgatherv counts bytes)" : "words)"));
    }
    return Support::yes();
  }

  Cost cost(const Shape& s) const override {
    const double gather = std::max(bytes(s.total(0) - s.max_block(0)), bytes(s.total(1) - s.max_block(1)));
    return {3 * log2_rounds(static_cast<std::size_t>(std::max(s.p, s.q))) + 1, gather + 3 * transfer_bound(s)};
  }

  std::unique_ptr<Runner> prepare(const GroupPair& pair, const Args& args) const override {
    return std::make_unique<RootGathering>(pair, args, info().collective == Collective::Allgatherv);
  }
};

struct ForAllgather final : RootGatheringAlgorithm { ForAllgather() : RootGatheringAlgorithm(Collective::Allgather) {} };
struct ForAllgatherv final : RootGatheringAlgorithm { ForAllgatherv() : RootGatheringAlgorithm(Collective::Allgatherv) {} };

COLLREPRO_REGISTER(ForAllgather);
COLLREPRO_REGISTER(ForAllgatherv);

}  // namespace
}  // namespace collrepro::inter
