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
// Call forms: blocking; nonblocking and persistent (the same stages as rounds of
//   started_rounds.hpp: MPI_Igather(v), MPI_Isend / MPI_Irecv between the roots, MPI_Ibcast; or
//   the library's persistent Gatherv and Bcast and MPI_Send_init / MPI_Recv_init built at init).
//   Allgatherv's gather of the sizes is the first round of the nonblocking call; the persistent
//   call gathers them once, at init, as the counts of its persistent Gatherv.
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
#include "collrepro/started_rounds.hpp"

namespace collrepro::inter {
namespace {

constexpr int kRootTag = 3103;

// The word size that counts one group's data: the widest that divides its (equal) Allgather
// blocks, bytes for Allgatherv, whose sizes a group's members do not all know.
std::size_t group_word(bool variable, std::size_t block) { return variable ? 1 : word_bytes(block); }

// At the root: the displacements of the gathered counts (in words) and the aggregate's size in
// bytes; grows `aggregate` to hold it.
std::size_t lay_out_aggregate(const std::vector<int>& counts, std::vector<int>& displs, std::size_t word,
                              Buffer& aggregate) {
  std::size_t words = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displs[r] = mpi_words(words * word, word, "MPI_Gatherv displacement");
    words += static_cast<std::size_t>(counts[r]);
  }
  if (aggregate.size() < words * word) aggregate = Buffer(words * word);
  return words * word;
}

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
    const std::size_t total = is_root() ? lay_out_aggregate(local_counts_, local_displs_, local_word_, aggregate_) : 0;
    const MPI_Datatype type = word_type(local_word_);
    check(MPI_Gatherv(args_.send, mine, type, aggregate_.data(), local_counts_.data(), local_displs_.data(), type, 0,
                      pair_.local()),
          "MPI_Gatherv");
    return total;
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

// The nonblocking and persistent calls: the blocking call's stages as rounds.
class RootGatheringStarted final : public StartedRunner {
 public:
  RootGatheringStarted(const GroupPair& pair, const Args& args, bool variable, CallForm form, const Capabilities& caps)
      : stage_(args), local_word_(group_word(variable, args.send_bytes)),
        mine_(mpi_words(args.send_bytes, local_word_, "MPI_Gatherv")), rounds_(form, caps) {
    const bool root = pair.local_rank() == 0;
    if (root) {
      local_counts_.resize(static_cast<std::size_t>(pair.local_size()), variable ? 0 : mine_);
      local_displs_.resize(local_counts_.size());
    }
    const auto lay_out = [this, root] {
      if (root) local_total_ = lay_out_aggregate(local_counts_, local_displs_, local_word_, aggregate_);
    };
    const MPI_Comm local = pair.local();
    const MPI_Datatype local_type = word_type(local_word_);
    // gather: Allgatherv first gathers the sizes (at init when persistent); an Allgather group
    // with empty blocks gathers nothing.
    std::function<void()> before_gatherv;
    if (variable && form == CallForm::Nonblocking) {
      rounds_.next_round();
      rounds_.gather(&mine_, 1, MPI_INT, local_counts_.data(), 1, MPI_INT, 0, local, "sizes");
      before_gatherv = lay_out;
    } else {
      if (variable) check(MPI_Gather(&mine_, 1, MPI_INT, local_counts_.data(), 1, MPI_INT, 0, local), "MPI_Gather (sizes)");
      lay_out();
    }
    if (variable || mine_ > 0) {
      rounds_.next_round(before_gatherv);
      rounds_.gatherv([&args] { return static_cast<const void*>(args.send); }, [this] { return mine_; }, local_type, [this] { return aggregate_.data(); },
                      local_counts_, local_displs_, 0, local, "local group");
    }
    // root-exchange
    const std::size_t remote_total = args.recv_total(), remote_word = group_word(variable, args.recv_block());
    const MPI_Datatype remote_type = word_type(remote_word);
    const int remote_words = mpi_words(remote_total, remote_word, "root exchange");
    rounds_.next_round();
    if (root) {
      rounds_.recv([this] { return static_cast<void*>(stage_.data()); }, [remote_words] { return remote_words; },
                   remote_type, pair.remote(0), kRootTag, pair.p2p());
      rounds_.send([this] { return static_cast<const void*>(aggregate_.data()); },
                   [this] { return mpi_words(local_total_, local_word_, "root exchange"); }, local_type,
                   pair.remote(0), kRootTag, pair.p2p());
    }
    // bcast, then the result copied to the user's displacements where they are not contiguous
    if (remote_total > 0) {
      rounds_.next_round();
      rounds_.bcast([this] { return static_cast<void*>(stage_.data()); }, [remote_words] { return remote_words; },
                    remote_type, 0, local, "local group");
    }
    rounds_.next_round([this] { stage_.finish(); });
  }

  void start() override { rounds_.start(); }
  void wait() override { rounds_.wait(); }

 private:
  ResultStage stage_;
  std::size_t local_word_;
  int mine_;  // this rank's block, in words
  std::vector<int> local_counts_, local_displs_;  // at the root, in words
  std::size_t local_total_ = 0;                   // the aggregate's bytes, at the root
  Buffer aggregate_;
  StartedRounds rounds_;  // last: its requests read the members above
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

  std::vector<CallForm> calls() const override { return every_call_form(); }
  std::unique_ptr<Runner> prepare_call(const GroupPair& pair, const Args& args, CallForm form,
                                       const Capabilities& caps) const override {
    if (form == CallForm::Blocking) return prepare(pair, args);
    return std::make_unique<RootGatheringStarted>(pair, args, info().collective == Collective::Allgatherv, form, caps);
  }
};

struct ForAllgather final : RootGatheringAlgorithm { ForAllgather() : RootGatheringAlgorithm(Collective::Allgather) {} };
struct ForAllgatherv final : RootGatheringAlgorithm { ForAllgatherv() : RootGatheringAlgorithm(Collective::Allgatherv) {} };

COLLREPRO_REGISTER(ForAllgather);
COLLREPRO_REGISTER(ForAllgatherv);

}  // namespace
}  // namespace collrepro::inter
