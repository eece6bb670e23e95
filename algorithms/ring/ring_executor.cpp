// The ring executor: runs one process's ring plan with MPI_Sendrecv, one call per round.
//
// Source: seed 000 §V ("We implement the proposed algorithms using MPI_Sendrecv function
//   under ring topological constraints", the baseline "using the same MPI_Sendrecv"); the
//   mapping of docs/algorithms/halfduplex-ring.md.
// Matching: one tag; every transfer of round t is a send in the sender's round t and a
//   receive in the receiver's round t, both processes call their rounds in order, and MPI
//   does not let messages between a pair overtake, so transfers match round by round.
//   No deadlock: the lowest round any process waits in has both sides of all its
//   transfers posted, and MPI_Sendrecv posts its send and its receive together.
// Call forms: the blocking call above; nonblocking and persistent calls run the same rounds as
//   rounds of collrepro/started_rounds.hpp (StartedRingRunner).
// Memory: no work buffer copies. A receiver receives m_j straight into its result
//   (args.recv + recv_displs[j]); a sender sends its own message from args.send; every
//   message a process only relays (and the baseline's dummy blocks) gets one k-byte
//   scratch block. A delivery of a message the process already holds (the paper's
//   schedule has a few) goes to a discard block, so no call ever receives into the block
//   it sends from.
#include "ring/ring_executor.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "collrepro/buffers.hpp"
#include "collrepro/mpi.hpp"
#include "collrepro/started_rounds.hpp"

namespace collrepro::ring {

// ---- shapes ------------------------------------------------------------------------------

Support check_half_duplex(const inter::Shape& shape) {
  if (shape.p < 1 || shape.q < 1) return Support::no("both groups need at least one process");
  if (!shape.half_duplex())
    return Support::no("the ring algorithms are half-duplex (one group sends, the other receives): set kb = 0 "
                       "(or ka = 0); for data in both directions use a full-duplex algorithm");
  if (!shape.uniform_blocks())
    return Support::no("the ring algorithms move equal-sized messages (Allgather): give every sender the same "
                       "block size");
  if (shape.max_block(0) + shape.max_block(1) > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    return Support::no("a block of more than 2^31 - 1 bytes does not fit one MPI_Sendrecv count");
  return Support::yes();
}

std::optional<Direction> direction_of(const inter::Shape& shape) {
  if (shape.total(0) == 0 && shape.total(1) == 0) return std::nullopt;
  const int side = shape.total(0) > 0 ? 0 : 1;
  return Direction{side, shape.size(side), shape.size(1 - side), shape.max_block(side)};
}

Cost rounds_cost(const inter::Shape& shape, double rounds) {
  const auto d = direction_of(shape);
  if (!d) return {};
  return {rounds, rounds * static_cast<double>(d->k)};
}

Cost ring_lower_bound(const inter::Shape& shape) {
  const auto d = direction_of(shape);
  if (!d) return {};
  return rounds_cost(shape, std::max(double(d->p), d->p + d->q / 2.0 - 1.0));
}

namespace {

// ---- this process's part of the call ---------------------------------------------------

// What one process knows of the call, from its own arguments and the GroupPair.
struct LocalRole {
  bool sender = false;
  int sender_side = 0;
  int p = 0, q = 0;
  std::size_t k = 0;
  int position = 0;
};

std::optional<LocalRole> local_role(const GroupPair& pair, const inter::Args& args) {
  const std::size_t incoming = args.recv_total();
  if (args.send_bytes > 0 && incoming > 0)
    throw std::invalid_argument("ring algorithms are half-duplex, but this process both sends and receives data");
  if (args.send_bytes > 0)
    return LocalRole{true, pair.side(), pair.local_size(), pair.remote_size(), args.send_bytes, pair.local_rank()};
  if (incoming == 0) return std::nullopt;
  const std::size_t k = args.recv_block();
  if (std::any_of(args.recv_counts.begin(), args.recv_counts.end(), [k](std::size_t c) { return c != k; }))
    throw std::invalid_argument("ring algorithms need equal blocks from every sender");
  return LocalRole{false, 1 - pair.side(), pair.remote_size(), pair.local_size(), k,
                   pair.remote_size() + pair.local_rank()};
}

// The rank in pair.both() of ring position x.
int rank_of_position(const GroupPair& pair, const LocalRole& me, int x) {
  return x < me.p ? pair.rank_in_both(me.sender_side, x) : pair.rank_in_both(1 - me.sender_side, x - me.p);
}

// ---- where every message lives on this process -----------------------------------------

class MessagePlaces {
 public:
  MessagePlaces(const LocalRole& me, const inter::Args& args, const RankPlan& plan)
      : me_(me), args_(args), scratch_index_(static_cast<std::size_t>(plan.messages), -1) {
    // Messages kept in scratch: the ones this process relays without keeping them in its
    // result, and its own dummy block (ring Allgather receivers).
    int blocks = 0;
    auto needs_scratch = [&](int m) {
      if (!in_result(m) && !is_own(m) && scratch_index_[static_cast<std::size_t>(m)] < 0)
        scratch_index_[static_cast<std::size_t>(m)] = blocks++;
    };
    if (!me.sender && me.position < plan.messages) needs_scratch(me.position);
    for (const Step& s : plan.rounds)
      if (s.receives()) needs_scratch(s.recv_message);
    scratch_ = Buffer(static_cast<std::size_t>(blocks) * me.k, std::byte{0});
    discard_ = Buffer(me.k);
  }

  // Messages held before round 0.
  bool initially_held(int m) const { return is_own(m) || (!me_.sender && m == me_.position); }
  const std::byte* source(int m) { return is_own(m) ? args_.send : place(m); }
  std::byte* destination(int m) { return place(m); }
  std::byte* discard() { return discard_.data(); }

 private:
  bool is_own(int m) const { return me_.sender && m == me_.position; }
  bool in_result(int m) const { return !me_.sender && m < me_.p; }
  std::byte* place(int m) {
    if (in_result(m)) return args_.recv + args_.recv_displs[static_cast<std::size_t>(m)];
    const int i = scratch_index_[static_cast<std::size_t>(m)];
    if (i < 0) throw std::logic_error("ring executor: message " + std::to_string(m) + " has no place");
    return scratch_.data() + static_cast<std::size_t>(i) * me_.k;
  }

  LocalRole me_;
  const inter::Args& args_;
  std::vector<int> scratch_index_;
  Buffer scratch_, discard_;
};

// ---- the runner ---------------------------------------------------------------------------

// One round of this process: which message goes out and which comes in (-1 and MPI_PROC_NULL
// where it only sends or receives). The addresses are resolved in every run, so the runner
// follows new buffers in `args` (the interposition library reuses one prepared runner for
// every call of the same shape).
struct Exchange {
  int send_message = -1;
  int dest = MPI_PROC_NULL;
  int recv_message = -1;
  bool discard = false;  // the message is already held: receive it into the discard block
  int source = MPI_PROC_NULL;
};

constexpr int kRingTag = 4207;

class RingRunner final : public Runner {
 public:
  RingRunner(MPI_Comm comm, std::size_t k, MessagePlaces places, std::vector<Exchange> exchanges)
      : comm_(comm), count_(mpi_count(k, "ring message")), places_(std::move(places)),
        exchanges_(std::move(exchanges)) {}

  void run() override {
    for (const Exchange& e : exchanges_) {
      const bool sends = e.send_message >= 0, receives = e.recv_message >= 0;
      const std::byte* send = sends ? places_.source(e.send_message) : nullptr;
      std::byte* recv = !receives ? nullptr : e.discard ? places_.discard() : places_.destination(e.recv_message);
      check(MPI_Sendrecv(send, sends ? count_ : 0, MPI_BYTE, e.dest, kRingTag, recv, receives ? count_ : 0, MPI_BYTE,
                         e.source, kRingTag, comm_, MPI_STATUS_IGNORE),
            "MPI_Sendrecv (ring round)");
    }
  }

 private:
  MPI_Comm comm_;
  int count_;
  MessagePlaces places_;  // owns the scratch blocks the exchanges point into
  std::vector<Exchange> exchanges_;
};

// The nonblocking and persistent calls: each busy round as a round of started_rounds.hpp, its
// receive and its send (MPI_Irecv / MPI_Isend posted at each start, or MPI_Recv_init /
// MPI_Send_init built here, at init), the next round started once this one has completed, as the
// blocking call's MPI_Sendrecv does. The same matching argument holds: both sides of a transfer
// are in the same round, posted in round order. Addresses are read when a request is built or
// posted, like the blocking runner's.
class StartedRingRunner final : public StartedRunner {
 public:
  StartedRingRunner(MPI_Comm comm, std::size_t k, MessagePlaces places, std::vector<Exchange> exchanges,
                    CallForm form, const Capabilities& caps)
      : places_(std::move(places)), exchanges_(std::move(exchanges)), rounds_(form, caps) {
    const int count = mpi_count(k, "ring message");
    const auto bytes = [count] { return count; };
    for (const Exchange& e : exchanges_) {
      rounds_.next_round();
      const Exchange* x = &e;
      if (e.recv_message >= 0)
        rounds_.recv([this, x] { return x->discard ? places_.discard() : places_.destination(x->recv_message); },
                     bytes, MPI_BYTE, e.source, kRingTag, comm);
      if (e.send_message >= 0)
        rounds_.send([this, x] { return static_cast<const void*>(places_.source(x->send_message)); }, bytes,
                     MPI_BYTE, e.dest, kRingTag, comm);
    }
  }

  void start() override { rounds_.start(); }
  void wait() override { rounds_.wait(); }

 private:
  MessagePlaces places_;  // owns the scratch blocks the exchanges point into
  std::vector<Exchange> exchanges_;
  StartedRounds rounds_;  // last: its requests read the members above
};

class NoOp final : public Runner {
 public:
  void run() override {}
};

// Turns the plan into this process's exchanges, checking on the way what the MPI calls rely
// on: a message is sent only once held, and a receiver ends with all p messages.
std::vector<Exchange> exchanges_for(const GroupPair& pair, const LocalRole& me, const RankPlan& plan,
                                    MessagePlaces& places) {
  std::vector<bool> held(static_cast<std::size_t>(plan.messages));
  for (int m = 0; m < plan.messages; ++m) held[static_cast<std::size_t>(m)] = places.initially_held(m);
  std::vector<Exchange> out;
  for (std::size_t t = 0; t < plan.rounds.size(); ++t) {
    const Step& s = plan.rounds[t];
    if (s.idle()) continue;
    Exchange& e = out.emplace_back();
    if (s.sends()) {
      if (!held[static_cast<std::size_t>(s.send_message)])
        throw std::logic_error("ring plan: position " + std::to_string(me.position) + " sends m" +
                               std::to_string(s.send_message) + " in round " + std::to_string(t) +
                               " before holding it");
      places.source(s.send_message);  // throws when the message has no place
      e.send_message = s.send_message;
      e.dest = rank_of_position(pair, me, s.send_to);
    }
    if (s.receives()) {
      const bool duplicate = held[static_cast<std::size_t>(s.recv_message)];
      if (!duplicate) places.destination(s.recv_message);  // throws when the message has no place
      e.recv_message = s.recv_message;
      e.discard = duplicate;
      e.source = rank_of_position(pair, me, s.recv_from);
      held[static_cast<std::size_t>(s.recv_message)] = true;
    }
  }
  if (!me.sender)
    for (int m = 0; m < me.p; ++m)
      if (!held[static_cast<std::size_t>(m)])
        throw std::logic_error("ring plan: receiver at position " + std::to_string(me.position) + " would miss m" +
                               std::to_string(m));
  return out;
}

}  // namespace

std::unique_ptr<Runner> prepare_ring(const GroupPair& pair, const inter::Args& args, RankPlanner planner,
                                     CallForm form, const Capabilities& caps) {
  const auto me = local_role(pair, args);
  if (!me) return std::make_unique<NoOp>();
  const RankPlan plan = planner(me->p, me->q, me->position);
  MessagePlaces places(*me, args, plan);
  auto exchanges = exchanges_for(pair, *me, plan, places);
  if (form == CallForm::Blocking)
    return std::make_unique<RingRunner>(pair.both(), me->k, std::move(places), std::move(exchanges));
  return std::make_unique<StartedRingRunner>(pair.both(), me->k, std::move(places), std::move(exchanges), form, caps);
}

}  // namespace collrepro::ring
