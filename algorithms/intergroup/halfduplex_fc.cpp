// halfduplex-fc: half-duplex inter-group all-to-all broadcast on a fully connected network.
// Details: docs/algorithms/halfduplex-fc.md.
//
// Source: Kang, Agrawal, Choudhary, Liao, "Optimal Algorithms for Half-Duplex Inter-Group
//   All-to-All Broadcast on Fully Connected and Ring Topologies" (seed 000), §III and Table I.
// Problem: p senders a_i each hold m_i (k bytes); every one of the q receivers must end
//   with m_0 .. m_{p-1}: the intercommunicator MPI_Allgather with one direction empty.
// Plan: halfduplex_fc_plan.cpp (pure, collplan). Executor: this file (point-to-point phase,
//   broadcasts, MPI_Allgather(v) on sub-communicators split in prepare()).
// Call forms: blocking; nonblocking and persistent (the same two phases as two rounds of
//   started_rounds.hpp, phase 2 started in the wait once phase 1 is complete; persistent: the
//   requests built once, MPI_Send_init / MPI_Recv_init and the library's persistent Bcast /
//   Allgather(v) on the sub-communicators, a start only starting them). Where the library's
//   persistent sub-collectives fail the probe (capabilities.hpp, intra_persistent), the
//   persistent call posts nonblocking ones instead.
// Phases (timing.phases): p >= q: pair-send, allgather-G; p < q: group-bcast,
//   subgroup-allgatherv.
// Cases:
//   p >= q: a_i sends m_i to b_i (i < q); then G = {b_0..b_{q-1}, a_q..a_{p-1}} runs an
//           Allgather ordered by message index.
//           Cost (1 + log p) t_s + p k t_w (optimal, §III).
//   p <  q, q = f p: broadcast groups {a_i, b_{i+pj}} rooted at a_i, then Allgather in the
//           f subgroups {b_{ip}..b_{ip+p-1}}.
//           Cost (log p + 2 log(q/p + 1)) t_s + (p + 1) k t_w (§III).
//   p <  q, q = f p + r, r > 0 (not in the paper; our extension): the r leftover receivers
//           are in no broadcast group; leftover b_{fp+l} joins subgroup l mod f with an
//           empty contribution and receives all p blocks in that subgroup's Allgatherv.
//           Cost (log(p + ceil(r/f)) + 2 log(f + 1)) t_s + (p + 1) k t_w: the leftovers
//           add no transfer time. Verified bit for bit against native MPI (tests/mpi).
// Supports: half-duplex shapes (exactly one of k_A, k_B non-zero, or both zero) with equal
//   blocks; the sender group may be A or B. Rejects full-duplex shapes (use
//   fullduplex-allgather) and unequal blocks.
// Erratum noted (seed 000 §III, Table I; docs/errata.md): the p < q latency "converges to
//   log q" is not right; log p + 2 log(q/p + 1) is what the algorithm costs, and what we
//   report. The paper also needs q = f p without saying so; the extension above lifts it.
#include <cstring>

#include "collrepro/halfduplex_fc_plan.hpp"
#include "collrepro/intergroup.hpp"
#include "collrepro/started_rounds.hpp"
#include "intergroup/costs.hpp"
#include "intergroup/exchange_executor.hpp"

namespace collrepro::inter {
namespace {

constexpr int kPhaseOneTag = 3102;

class NoOp final : public Runner {
 public:
  void run() override {}
};

// What every call form of one rank shares, built once in prepare(): the plan, the split
// communicators, the senders' scratch for the Allgather over G and the subgroup counts. Each
// step's arguments are here once; the forms below only choose the MPI call that takes them.
struct Schedule {
  Schedule(const GroupPair& pair_, const Args& args_)
      : pair(pair_), args(args_), sender(args.send_bytes > 0),
        k(sender ? args.send_bytes : args.recv_block()),
        count(mpi_count(k, "halfduplex-fc block count")),
        p(sender ? pair.local_size() : pair.remote_size()),
        q(sender ? pair.remote_size() : pair.local_size()),
        plan(plan_halfduplex_fc(p, q, sender, pair.local_rank())),
        gather(unless_alone(Comm::split(pair.both(), color(plan.gather_color), plan.gather_key))),
        bcast(Comm::split(pair.both(), color(plan.bcast_color), plan.bcast_key)),
        sub(sender ? Comm() : unless_alone(Comm::split(pair.local(), color(plan.sub_color), plan.sub_key))),
        scratch(sender && gather ? static_cast<std::size_t>(p) * k : 0) {
    for (std::size_t n = 0; n < plan.sub_counts.size(); ++n) {
      sub_counts.push_back(mpi_count(plan.sub_counts[n] * k, "subgroup Allgatherv count"));
      sub_displs.push_back(mpi_count(std::min<std::size_t>(n, static_cast<std::size_t>(p)) * k, "displacement"));
    }
  }

  static int color(int c) { return c == kNoGroup ? MPI_UNDEFINED : c; }
  // An in-place Allgather(v) over one process moves nothing (G at p = 1 is b_0 alone, who has
  // m_0 after phase 1; a subgroup at p = 1 is one receiver): no form calls it (a library's
  // nonblocking or persistent call would still build and run a schedule at every start).
  static Comm unless_alone(Comm c) { return c && c.size() == 1 ? Comm() : std::move(c); }
  std::byte* block(std::byte* base, int index) const { return base + static_cast<std::size_t>(index) * k; }
  bool pairs_first() const { return p >= q; }  // p >= q: pair-send, allgather-G; else group-bcast, subgroup-allgatherv

  // p >= q, phase 1: where a_i's block arrives at b_i.
  std::byte* pair_slot() const { return block(args.recv, pair.local_rank()); }
  // p >= q, phase 2: the buffer of the Allgather over G; a sender in G first copies its block in.
  std::byte* gather_buffer() { return sender ? scratch.data() : args.recv; }
  void copy_own_block() {
    if (sender && gather) std::memcpy(block(scratch.data(), plan.gather_key), args.send, k);
  }
  // p < q, phase 1: the broadcast's buffer (the root's is only read by MPI_Bcast).
  void* bcast_buffer() const {
    return sender ? const_cast<std::byte*>(args.send) : block(args.recv, plan.bcast_color);
  }

  const GroupPair& pair;
  const Args& args;
  bool sender;
  std::size_t k;
  int count;
  int p, q;
  HalfDuplexFcPlan plan;
  Comm gather, bcast, sub;
  Buffer scratch;
  std::vector<int> sub_counts, sub_displs;
};

// The blocking call: each phase one blocking step.
class HalfDuplexFc final : public Runner {
 public:
  HalfDuplexFc(const GroupPair& pair, const Args& args) : s_(pair, args) {}

  void run() override {
    if (s_.pairs_first()) {
      send_phase_one();
      end_phase();
      gather_by_message_index();
      end_phase();
    } else {
      broadcast_in_groups();
      end_phase();
      gather_in_subgroups();
      end_phase();
    }
  }

  std::vector<std::string> phases() const override {
    if (s_.pairs_first()) return {"pair-send", "allgather-G"};
    return {"group-bcast", "subgroup-allgatherv"};
  }

 private:
  void send_phase_one() {
    const auto& pair = s_.pair;
    if (s_.plan.send_to >= 0)
      check(MPI_Send(s_.args.send, s_.count, MPI_BYTE, pair.remote(s_.plan.send_to), kPhaseOneTag, pair.p2p()), "MPI_Send");
    if (s_.plan.recv_from >= 0)
      check(MPI_Recv(s_.pair_slot(), s_.count, MPI_BYTE, pair.remote(s_.plan.recv_from), kPhaseOneTag, pair.p2p(),
                     MPI_STATUS_IGNORE),
            "MPI_Recv");
  }

  void gather_by_message_index() {
    if (!s_.gather) return;
    s_.copy_own_block();
    check(MPI_Allgather(MPI_IN_PLACE, 0, MPI_BYTE, s_.gather_buffer(), s_.count, MPI_BYTE, s_.gather.get()),
          "MPI_Allgather (group G)");
  }

  void broadcast_in_groups() {
    if (!s_.bcast) return;
    check(MPI_Bcast(s_.bcast_buffer(), s_.count, MPI_BYTE, 0, s_.bcast.get()), "MPI_Bcast (broadcast group)");
  }

  void gather_in_subgroups() {
    if (!s_.sub) return;
    check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, s_.args.recv, s_.sub_counts.data(), s_.sub_displs.data(), MPI_BYTE,
                         s_.sub.get()),
          "MPI_Allgatherv (receiver subgroup)");
  }

  Schedule s_;
};

// The nonblocking and persistent calls: the same two phases as two rounds of started_rounds.hpp
// (phase 2 starts in the wait once phase 1 is complete, so the schedule progresses in MPI_Wait
// without a helper thread): MPI_Isend / MPI_Irecv or MPI_Ibcast, then MPI_Iallgather(v), posted
// per call; or MPI_Send_init / MPI_Recv_init and the library's persistent Bcast / Allgather(v),
// built once here, a start only starting them (with StartedRounds' workaround where the
// library's persistent sub-collectives fail the probe).
class HalfDuplexFcStarted final : public StartedRunner {
 public:
  HalfDuplexFcStarted(const GroupPair& pair, const Args& args, CallForm form, const Capabilities& caps)
      : s_(pair, args),
        gather_counts_(static_cast<std::size_t>(s_.p), s_.count),
        gather_displs_(gather_counts_.size()),
        rounds_(form, caps) {
    for (std::size_t i = 0; i < gather_displs_.size(); ++i)
      gather_displs_[i] = static_cast<int>(i) * s_.count;  // G-rank = message index: an Allgather's layout
    rounds_.next_round([this] { s_.copy_own_block(); });   // a sender in G: its own block, read at each start
    if (s_.pairs_first()) {
      pair_send();
      rounds_.next_round();
      if (s_.gather)
        rounds_.allgatherv_in_place(s_.gather.get(), [this] { return s_.gather_buffer(); }, gather_counts_,
                                    gather_displs_, "group G");
    } else {
      if (s_.bcast)
        rounds_.bcast([this] { return s_.bcast_buffer(); }, [this] { return s_.count; }, MPI_BYTE, 0, s_.bcast.get(),
                      "broadcast group");
      rounds_.next_round();
      if (s_.sub)
        rounds_.allgatherv_in_place(s_.sub.get(), [this] { return s_.args.recv; }, s_.sub_counts, s_.sub_displs,
                                    "receiver subgroup");
    }
  }

  void start() override { rounds_.start(); }
  void wait() override { rounds_.wait(); }

 private:
  // p >= q, phase 1: a_i -> b_i. Buffers are read at build or post time: the PMPI library rebinds
  // a nonblocking call's buffers (args) at every call.
  void pair_send() {
    const auto& pair = s_.pair;
    const auto count = [this] { return s_.count; };
    if (s_.plan.send_to >= 0)
      rounds_.send([this] { return static_cast<const void*>(s_.args.send); }, count, MPI_BYTE,
                   pair.remote(s_.plan.send_to), kPhaseOneTag, pair.p2p());
    if (s_.plan.recv_from >= 0)
      rounds_.recv([this] { return static_cast<void*>(s_.pair_slot()); }, count, MPI_BYTE,
                   pair.remote(s_.plan.recv_from), kPhaseOneTag, pair.p2p());
  }

  Schedule s_;
  std::vector<int> gather_counts_, gather_displs_;
  StartedRounds rounds_;  // last: its requests read the members above
};

class HalfDuplexFcAlgorithm final : public InterAlgorithm {
 public:
  HalfDuplexFcAlgorithm()
      : InterAlgorithm({"halfduplex-fc", Collective::Allgather, Topology::FullyConnected, Kind::Proposed,
                        "seed 000 §III (p = q, p > q, p < q; p < q with q mod p != 0 extended)",
                        "p >= q: (1 + log p) t_s + p k t_w; p < q: (log p + 2 log(q/p + 1)) t_s + (p + 1) k t_w"}) {}

  Support supports(const Shape& s, PairMode) const override { return half_duplex_equal_blocks(s); }

  Cost cost(const Shape& s) const override {
    const auto [p, q, k] = half_duplex_sides(s);
    if (p >= q) return {1 + log2_rounds(p), static_cast<double>(p) * k};
    const std::size_t f = q / p, r = q % p;
    return {log2_rounds(p + (r + f - 1) / f) + 2 * log2_rounds(f + 1), static_cast<double>(p + 1) * k};
  }

  std::unique_ptr<Runner> prepare(const GroupPair& pair, const Args& args) const override {
    if (args.send_bytes == 0 && args.recv_block() == 0) return std::make_unique<NoOp>();
    return std::make_unique<HalfDuplexFc>(pair, args);
  }

  std::vector<CallForm> calls() const override { return every_call_form(); }
  std::unique_ptr<Runner> prepare_call(const GroupPair& pair, const Args& args, CallForm form,
                                       const Capabilities& caps) const override {
    if (form == CallForm::Blocking || (args.send_bytes == 0 && args.recv_block() == 0)) return prepare(pair, args);
    return std::make_unique<HalfDuplexFcStarted>(pair, args, form, caps);
  }
};

COLLREPRO_REGISTER(HalfDuplexFcAlgorithm);

}  // namespace
}  // namespace collrepro::inter
