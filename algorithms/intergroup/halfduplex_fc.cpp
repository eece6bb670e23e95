// halfduplex-fc: half-duplex inter-group all-to-all broadcast on a fully connected network.
// Details: docs/algorithms/halfduplex-fc.md.
//
// Source: Kang, Agrawal, Choudhary, Liao, "Optimal Algorithms for Half-Duplex Inter-Group
//   All-to-All Broadcast on Fully Connected and Ring Topologies" (seed 000), §III and Table I.
// Problem: p senders a_i each hold m_i (k bytes); every one of the q receivers must end
//   with m_0 .. m_{p-1}: the intercommunicator MPI_Allgather with one direction empty.
// Plan: halfduplex_fc_plan.cpp (pure, collplan). Executor: this file (point-to-point phase,
//   broadcasts, MPI_Allgather(v) on sub-communicators split in prepare()).
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
#include "intergroup/costs.hpp"
#include "intergroup/exchange_executor.hpp"

namespace collrepro::inter {
namespace {

constexpr int kPhaseOneTag = 3102;

class NoOp final : public Runner {
 public:
  void run() override {}
};

class HalfDuplexFc final : public Runner {
 public:
  HalfDuplexFc(const GroupPair& pair, const Args& args)
      : pair_(pair), args_(args), sender_(args.send_bytes > 0),
        k_(sender_ ? args.send_bytes : args.recv_block()),
        p_(sender_ ? pair.local_size() : pair.remote_size()),
        q_(sender_ ? pair.remote_size() : pair.local_size()),
        plan_(plan_halfduplex_fc(p_, q_, sender_, pair.local_rank())),
        gather_(Comm::split(pair.both(), color(plan_.gather_color), plan_.gather_key)),
        bcast_(Comm::split(pair.both(), color(plan_.bcast_color), plan_.bcast_key)),
        sub_(sender_ ? Comm() : Comm::split(pair.local(), color(plan_.sub_color), plan_.sub_key)),
        scratch_(sender_ && gather_ ? static_cast<std::size_t>(p_) * k_ : 0) {
    for (std::size_t n = 0; n < plan_.sub_counts.size(); ++n) {
      sub_counts_.push_back(mpi_count(plan_.sub_counts[n] * k_, "subgroup Allgatherv count"));
      sub_displs_.push_back(mpi_count(std::min<std::size_t>(n, static_cast<std::size_t>(p_)) * k_, "displacement"));
    }
  }

  void run() override {
    if (p_ >= q_) {
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
    if (p_ >= q_) return {"pair-send", "allgather-G"};
    return {"group-bcast", "subgroup-allgatherv"};
  }

 private:
  static int color(int c) { return c == kNoGroup ? MPI_UNDEFINED : c; }
  std::byte* block(std::byte* base, int index) const { return base + static_cast<std::size_t>(index) * k_; }

  void send_phase_one() {
    const int count = mpi_count(k_, "MPI_Send");
    if (plan_.send_to >= 0)
      check(MPI_Send(args_.send, count, MPI_BYTE, pair_.remote(plan_.send_to), kPhaseOneTag, pair_.p2p()), "MPI_Send");
    if (plan_.recv_from >= 0)
      check(MPI_Recv(block(args_.recv, pair_.local_rank()), count, MPI_BYTE, pair_.remote(plan_.recv_from),
                     kPhaseOneTag, pair_.p2p(), MPI_STATUS_IGNORE),
            "MPI_Recv");
  }

  void gather_by_message_index() {
    if (!gather_) return;
    std::byte* buffer = sender_ ? scratch_.data() : args_.recv;
    if (sender_) std::memcpy(block(buffer, plan_.gather_key), args_.send, k_);
    check(MPI_Allgather(MPI_IN_PLACE, 0, MPI_BYTE, buffer, mpi_count(k_, "MPI_Allgather"), MPI_BYTE, gather_.get()),
          "MPI_Allgather (group G)");
  }

  void broadcast_in_groups() {
    if (!bcast_) return;
    // The root's buffer is only read by MPI_Bcast.
    void* buffer = sender_ ? const_cast<std::byte*>(args_.send) : block(args_.recv, plan_.bcast_color);
    check(MPI_Bcast(buffer, mpi_count(k_, "MPI_Bcast"), MPI_BYTE, 0, bcast_.get()), "MPI_Bcast (broadcast group)");
  }

  void gather_in_subgroups() {
    if (!sub_) return;
    check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, args_.recv, sub_counts_.data(), sub_displs_.data(), MPI_BYTE,
                         sub_.get()),
          "MPI_Allgatherv (receiver subgroup)");
  }

  const GroupPair& pair_;
  const Args& args_;
  bool sender_;
  std::size_t k_;
  int p_, q_;
  HalfDuplexFcPlan plan_;
  Comm gather_, bcast_, sub_;
  Buffer scratch_;
  std::vector<int> sub_counts_, sub_displs_;
};

class HalfDuplexFcAlgorithm final : public InterAlgorithm {
 public:
  HalfDuplexFcAlgorithm()
      : InterAlgorithm({"halfduplex-fc", Collective::Allgather, "fully-connected", Kind::Proposed,
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
};

COLLREPRO_REGISTER(HalfDuplexFcAlgorithm);

}  // namespace
}  // namespace collrepro::inter
