// halfduplex-fc-minvol: volume-minimal half-duplex inter-group all-to-all broadcast on a fully
// connected network. Details: docs/algorithms/halfduplex-fc-minvol.md.
//
// Source: collrepro's own variant of seed 000 §III (the paper's algorithm is halfduplex-fc,
//   halfduplex_fc.cpp); not in the paper.
// Problem: p senders a_i each hold m_i (k bytes); every one of the q receivers must end
//   with m_0 .. m_{p-1}: the intercommunicator MPI_Allgather with one direction empty.
// Plan: halfduplex_fc_minvol_plan.cpp (pure, collplan). Executor: this file (point-to-point
//   phase, then an in-place MPI_Allgather(v) on the receivers' own group communicator).
// Schedule: the p block indices form q contiguous balanced ranges, receiver b_j owning
//   [lo_j, hi_j) (ceil(p/q) or floor(p/q) blocks).
//   1. to-owners: a_i sends m_i to the owner of index i (MPI_Send), which has posted an
//      MPI_Irecv straight into block i of its result for every block it owns.
//   2. receiver-allgatherv: the q receivers run an in-place Allgatherv of their ranges
//      (MPI_Allgather when q divides p); the senders take no part.
// Phases (timing.phases): to-owners, receiver-allgatherv; every rank marks both.
// Call forms: blocking; nonblocking and persistent (the same two phases as two rounds of
//   started_rounds.hpp: MPI_Isend / MPI_Irecv then MPI_Iallgather(v), or MPI_Send_init /
//   MPI_Recv_init and the library's persistent Allgather(v) built at init).
// Cases: every p, q >= 1 with one schedule: p > q (receivers own about p/q blocks each),
//   p = q (one each), p < q (the first p receivers own one block, the others none and receive
//   everything in phase 2); q = 1: phase 2 is empty.
// Cost (alpha-beta, at the busiest receiver, c = ceil(p/q)):
//   phase 1: c (t_s + k t_w); phase 2: log q t_s + (q - 1) c k t_w;
//   in all (c + log q) t_s + q c k t_w.
// Bytes delivered in all: p k + (q - 1) p k = q p k, the minimum for the collective.
// Supports: half-duplex shapes (exactly one of k_A, k_B non-zero, or both zero: a no-op) with
//   equal blocks; the sender group may be A or B (each rank reads its role from its own
//   arguments). Rejects full-duplex shapes and unequal blocks.
// How and why it differs from the paper: for p >= q the paper pairs a_i with b_i (i < q) and
//   runs one Allgather over G = {b_0..b_{q-1}, a_q..a_{p-1}}, so the p - q unpaired senders
//   also receive every block (into scratch they drop): about p (p - 1) k + q k bytes in all.
//   On the paper's single-port network only the busiest port counts, and there the paper's
//   p k t_w is optimal: this variant's q c k t_w equals it when q divides p and exceeds it by
//   up to (q - 1) k t_w otherwise (c blocks per Allgatherv round at the receivers' ports), and
//   its c + log q start-ups are never fewer than the paper's 1 + log p. On one node, where
//   every copy goes through the same memory system, the total volume counts, and this variant
//   moves q p k against the paper's p (p - 1) k + q k (48k against 136k at p/q = 12/4).
//   For p < q both move q p k; the paper's (p + 1) k t_w is then the better transfer term.
#include "collrepro/halfduplex_fc_minvol_plan.hpp"
#include "collrepro/intergroup.hpp"
#include "intergroup/costs.hpp"
#include "intergroup/exchange_executor.hpp"
#include "collrepro/started_rounds.hpp"

namespace collrepro::inter {
namespace {

constexpr int kToOwnersTag = 3104;

class NoOp final : public Runner {
 public:
  void run() override {}
};

class HalfDuplexFcMinvol final : public Runner {
 public:
  HalfDuplexFcMinvol(const GroupPair& pair, const Args& args)
      : pair_(pair), args_(args), sender_(args.send_bytes > 0),
        k_(sender_ ? args.send_bytes : args.recv_block()),
        p_(sender_ ? pair.local_size() : pair.remote_size()),
        q_(sender_ ? pair.remote_size() : pair.local_size()),
        plan_(plan_halfduplex_fc_minvol(p_, q_, sender_, pair.local_rank())) {
    count_ = mpi_count(k_, "MPI_Send/MPI_Irecv");
    for (std::size_t j = 0; j < plan_.counts.size(); ++j) {
      counts_.push_back(mpi_count(plan_.counts[j] * k_, "receiver Allgatherv count"));
      displs_.push_back(mpi_count(plan_.displs[j] * k_, "receiver Allgatherv displacement"));
    }
  }

  void run() override {
    to_owners();
    end_phase();
    receiver_allgatherv();
    end_phase();
  }

  std::vector<std::string> phases() const override { return {"to-owners", "receiver-allgatherv"}; }

 private:
  void to_owners() {
    if (sender_) {
      check(MPI_Send(args_.send, count_, MPI_BYTE, pair_.remote(plan_.send_to), kToOwnersTag, pair_.p2p()),
            "MPI_Send (to the owner)");
      return;
    }
    if (plan_.own_lo == plan_.own_hi) return;
    Requests requests;
    requests.reserve(static_cast<std::size_t>(plan_.own_hi - plan_.own_lo));
    for (int i = plan_.own_lo; i < plan_.own_hi; ++i)
      requests.irecv(args_.recv + static_cast<std::size_t>(i) * k_, k_, pair_.remote(i), kToOwnersTag, pair_.p2p());
    requests.wait_all();
  }

  void receiver_allgatherv() {
    if (sender_ || q_ == 1) return;
    allgatherv_in_place(pair_.local(), args_.recv, counts_, displs_, "MPI_Allgatherv (receivers)");
  }

  const GroupPair& pair_;
  const Args& args_;
  bool sender_;
  std::size_t k_;
  int p_, q_;
  HalfDuplexFcMinvolPlan plan_;
  int count_ = 0;
  std::vector<int> counts_, displs_;
};

// The nonblocking and persistent calls: the blocking call's two phases as two rounds.
class HalfDuplexFcMinvolStarted final : public StartedRunner {
 public:
  HalfDuplexFcMinvolStarted(const GroupPair& pair, const Args& args, CallForm form, const Capabilities& caps)
      : rounds_(form, caps) {
    const bool sender = args.send_bytes > 0;
    const std::size_t k = sender ? args.send_bytes : args.recv_block();
    const int p = sender ? pair.local_size() : pair.remote_size(), q = sender ? pair.remote_size() : pair.local_size();
    const auto plan = plan_halfduplex_fc_minvol(p, q, sender, pair.local_rank());
    const int count = mpi_count(k, "MPI_Send/MPI_Irecv");
    const auto bytes = [count] { return count; };
    rounds_.next_round();  // to-owners
    if (sender)
      rounds_.send([&args] { return static_cast<const void*>(args.send); }, bytes, MPI_BYTE, pair.remote(plan.send_to),
                   kToOwnersTag, pair.p2p());
    for (int i = plan.own_lo; !sender && i < plan.own_hi; ++i)
      rounds_.recv([&args, at = static_cast<std::size_t>(i) * k] { return static_cast<void*>(args.recv + at); }, bytes,
                   MPI_BYTE, pair.remote(i), kToOwnersTag, pair.p2p());
    rounds_.next_round();  // receiver-allgatherv
    if (sender || q == 1) return;
    for (std::size_t j = 0; j < plan.counts.size(); ++j) {
      counts_.push_back(mpi_count(plan.counts[j] * k, "receiver Allgatherv count"));
      displs_.push_back(mpi_count(plan.displs[j] * k, "receiver Allgatherv displacement"));
    }
    rounds_.allgatherv_in_place(pair.local(), recv_of(args), counts_, displs_, "receivers");
  }

  void start() override { rounds_.start(); }
  void wait() override { rounds_.wait(); }

 private:
  std::vector<int> counts_, displs_;  // before rounds_: its requests read them
  StartedRounds rounds_;
};

class HalfDuplexFcMinvolAlgorithm final : public InterAlgorithm {
 public:
  HalfDuplexFcMinvolAlgorithm()
      : InterAlgorithm({"halfduplex-fc-minvol", Collective::Allgather, Topology::FullyConnected, Kind::Proposed,
                        "collrepro variant of seed 000 §III: volume-minimal",
                        "(ceil(p/q) + log q) t_s + q ceil(p/q) k t_w; q p k bytes in all"}) {}

  Support supports(const Shape& s, PairMode) const override { return half_duplex_equal_blocks(s); }

  Cost cost(const Shape& s) const override {
    const auto [p, q, k] = half_duplex_sides(s);
    const auto c = static_cast<double>(halfduplex_fc_minvol_busiest(p, q));
    const Cost to_owners{c, c * k};
    const Cost receiver_allgatherv{log2_rounds(q), static_cast<double>(q - 1) * c * k};
    return {to_owners.alpha_terms + receiver_allgatherv.alpha_terms,
            to_owners.beta_bytes + receiver_allgatherv.beta_bytes};
  }

  std::unique_ptr<Runner> prepare(const GroupPair& pair, const Args& args) const override {
    if (args.send_bytes == 0 && args.recv_block() == 0) return std::make_unique<NoOp>();
    return std::make_unique<HalfDuplexFcMinvol>(pair, args);
  }

  std::vector<CallForm> calls() const override { return every_call_form(); }
  std::unique_ptr<Runner> prepare_call(const GroupPair& pair, const Args& args, CallForm form,
                                       const Capabilities& caps) const override {
    if (form == CallForm::Blocking || (args.send_bytes == 0 && args.recv_block() == 0)) return prepare(pair, args);
    return std::make_unique<HalfDuplexFcMinvolStarted>(pair, args, form, caps);
  }
};

COLLREPRO_REGISTER(HalfDuplexFcMinvolAlgorithm);

}  // namespace
}  // namespace collrepro::inter
