// halfduplex-ring schedule: the optimal half-duplex inter-group all-to-all broadcast on a
// ring (pure planner, no MPI).
//
// Source: seed 000 (Kang, Agrawal, Choudhary, Liao), §IV: Algorithm 1 (p = q), the p > q
//   case described in §IV-E without pseudocode, Algorithm 3 (p < q). Indices as in
//   the paper; details in docs/algorithms/halfduplex-ring.md.
// Cost: (p + q/2)(t_s + k t_w), p + q/2 rounds of one k-byte message per port; the ring
//   lower bound is (p + q/2 - 1)(t_s + k t_w) (§IV-D).
// Cases:
//   p >= q, both even: Algorithm 1 generalised with h = q/2 (our reading of §IV-E): stage 1 and 3 have
//     h rounds, stage 2 has p - h; sequence #1 stops at N-1 in stages 2 and 3. With p = q
//     every formula is Algorithm 1's, verbatim.
//   p < q, both even: Algorithm 3 with 003's line 58 and the corrected #4-2.
//   p or q odd: not in the paper (it says "a dummy process can be used", which a real run
//     cannot have). Extension: run the even schedule for p' = p + p mod 2, q' = q + q mod 2
//     with phantoms, and fold each phantom into a real ring neighbour, which then does the
//     phantom's sends and receives itself (transfers between a phantom and its host become
//     local and vanish; the phantom sender's message is never sent):
//       - phantom sender: sender index 0 (before a_0); folded into the last receiver, its
//         neighbour across the wrap. Real message j is padded message j + 1.
//       - phantom receiver: first receiver (between a_{p-1} and b_0); folded into a_{p-1}
//         when p >= q and into b_0 when p < q.
//     The folded schedule keeps the padded round count p' + q'/2. The placement came out
//     of a search over phantom positions (either end of each group, middle of the
//     receivers) and both possible hosts; most other choices give a host two sends or two
//     receives in some round for some sizes. The unit tests replay it for every
//     1 <= p <= 40, 1 <= q <= 80.
// Errata corrected (docs/errata.md):
//   - Algorithm 3, stage 2, #4-2: the sender is taken mod (p + q); the condition is
//     2j > 2i + 3p/2 - q (printed: 2j > 2i + p/2); j is capped at p - 1. As printed the
//     algorithm leaves 63 receivers incomplete at p = 64, q = 192 (unit test
//     HalfDuplexRingRegression guards this).
//   - Algorithm 3, line 58: the sender is q/2 + i + 2j (003), not p/2 + i + 2j (000).
//   - Algorithm 3 needs ceil(i/2) in #4-1/#4-2 (the paper says so in the text).
// Kept as in the paper: the p < q schedule sends a few #1 messages to receivers that
// already got them through #4 (e.g. 8 -> 9: m_2 in round 6 for p = 4, q = 6; unit test
// HalfDuplexRingSchedule.WorkedScheduleCorrectedAlgorithm3Figure2).
// They cost no extra round; the executor receives such duplicates into a discard block.
#include <algorithm>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>

#include "collrepro/ring_schedule.hpp"

namespace collrepro::ring {
namespace {

int mod(long a, int n) {
  const long r = a % n;
  return static_cast<int>(r < 0 ? r + n : r);
}

// ---- the even schedules as data -----------------------------------------------------------

// One message sequence within one stage (Definition IV.1): in round i of the stage, for
// every j in range(i) with when(i, j), position sender(i) + stride * j (mod N) sends
// message(i, j) to its neighbour in direction dir (+1: to x + 1, -1: to x - 1).
struct MessageSequence {
  Sequence label;
  int dir;
  int stride;  // 1: contiguous block, 2: interleaved
  std::function<long(int i)> sender;
  std::function<int(int i, int j)> message;
  std::function<std::pair<int, int>(int i)> range;  // inclusive [lo, hi]; empty when lo > hi
  std::function<bool(int i, int j)> when = [](int, int) { return true; };
};

struct Stage {
  int rounds = 0;
  std::vector<MessageSequence> sequences;
};

int message_j(int, int j) { return j; }

// p >= q (§IV-E, derived); with p = q exactly Algorithm 1 (§IV).
std::vector<Stage> more_senders_stages(int p, int q) {
  const int N = p + q, h = q / 2, S2 = p - h;
  Stage one{h, {}}, two{S2, {}}, three{h, {}};
  // Stage 1: #1 moves the upper messages right as a block, #2 moves the lower messages left
  // across the wrap, #3 spreads the lower messages to the even positions 2j.
  one.sequences = {
      {Sequence::S1, +1, 1, [](int i) { return i; }, message_j, [=](int) { return std::pair{h, p - 1}; }},
      {Sequence::S2, -1, 1, [](int i) { return -i; }, message_j, [=](int) { return std::pair{0, h - 1}; }},
      {Sequence::S3, +1, 2, [=](int i) { return h - i; }, [=](int i, int j) { return h - i + j; },
       [](int i) { return std::pair{0, i - 1}; }},
  };
  // Stage 2: #1 keeps moving (stopping at N-1, needed when p > q); #3 moves interleaved.
  two.sequences = {
      {Sequence::S1, +1, 1, [=](int i) { return h + i; }, message_j, [=](int) { return std::pair{h, p - 1}; },
       [=](int i, int j) { return h + j + i + 1 <= N - 1; }},
      {Sequence::S3, +1, 2, [](int i) { return i; }, message_j, [=](int) { return std::pair{0, h - 1}; }},
  };
  // Stage 3: #2 resumes, interleaved, from the top receivers down; #2 and #3 end on adjacent
  // receivers 2j + p + 1 and 2j + p.
  three.sequences = {
      {Sequence::S1, +1, 1, [=](int i) { return p + i; }, message_j, [=](int) { return std::pair{h, p - 1}; },
       [=](int i, int j) { return p + j + i + 1 <= N - 1; }},
      {Sequence::S2, -1, 2, [=](int i) { return p + h - i - 1; }, [](int, int j) { return j - 1; },
       [](int i) { return std::pair{1, i}; }},
      {Sequence::S3, +1, 2, [=](int i) { return S2 + i; }, message_j, [=](int) { return std::pair{0, h - 1}; }},
  };
  return {one, two, three};
}

int ceil_half(int i) { return (i + 1) / 2; }

// p < q: Algorithm 3 (§IV-E) with the corrected #4-2 and 003's line 58.
std::vector<Stage> more_receivers_stages(int p, int q) {
  const int P = p / 2, Q = q / 2;
  Stage one{P, {}}, two{Q, {}}, three{P, {}};
  // Stage 1: Algorithm 1's stage 1 plus #4, the mirror of #3 for the upper messages.
  one.sequences = {
      {Sequence::S1, +1, 1, [](int i) { return i; }, message_j, [=](int) { return std::pair{P, p - 1}; }},
      {Sequence::S2, -1, 1, [](int i) { return -i; }, message_j, [=](int) { return std::pair{0, P - 1}; }},
      {Sequence::S3, +1, 2, [=](int i) { return P - i; }, [=](int i, int j) { return P - i + j; },
       [](int i) { return std::pair{0, i - 1}; }},
      {Sequence::S4, -1, 2, [=](int i) { return -i - P + 1; }, message_j,
       [=](int i) { return std::pair{P, P + i - 1}; }},
  };
  two.sequences = {
      {Sequence::S1, +1, 1, [=](int i) { return P + i; }, message_j, [=](int) { return std::pair{P, p - 1}; }},
      {Sequence::S2, -1, 1, [=](int i) { return P + q - i; }, message_j, [=](int) { return std::pair{0, P - 1}; },
       [=](int i, int) { return i < Q - P; }},
      {Sequence::S3, +1, 2, [](int i) { return i; }, message_j, [=](int) { return std::pair{0, P - 1}; }},
      {Sequence::S4_1, -1, 2, [=](int i) { return -i - p + 1; }, message_j,
       [=](int i) { return std::pair{P + ceil_half(i), p - 1}; }},
      // ERRATUM (docs/errata.md): printed as "for j in {p/2 .. p/2 + ceil(i/2) - 1}: if 2j > 2i + p/2:
      // 2j - i + q + 1 sends m_j to 2j - i + q". Corrected: sender mod (p + q) (it is p + q
      // when the message wraps), condition 2j > 2i + 3p/2 - q, j capped at p - 1.
      {Sequence::S4_2, -1, 2, [=](int i) { return q + 1 - i; }, message_j,
       [=](int i) { return std::pair{P, std::min(p - 1, P + ceil_half(i) - 1)}; },
       [=](int i, int j) { return 2 * j > 2 * i + 3 * P - q; }},
  };
  three.sequences = {
      {Sequence::S1, +1, 1, [=](int i) { return P + Q + i; }, message_j, [=](int) { return std::pair{P, p - 1}; },
       [=](int i, int j) { return j + i + 1 < P + Q; }},
      {Sequence::S2, -1, 2, [=](int i) { return Q + p - i - 1; }, [](int, int j) { return j - 1; },
       [](int i) { return std::pair{1, i}; }},
      // Line 58 as in 003: sender q/2 + i + 2j (000 prints p/2 + i + 2j, which is no ring link).
      {Sequence::S3, +1, 2, [=](int i) { return Q + i; }, message_j, [=](int) { return std::pair{0, P - 1}; }},
  };
  return {one, two, three};
}

std::vector<Stage> even_stages(int p, int q) {
  return p >= q ? more_senders_stages(p, q) : more_receivers_stages(p, q);
}

// ---- the two views of an even schedule --------------------------------------------------

std::vector<std::vector<Transfer>> even_global(int p, int q) {
  const int N = p + q;
  std::vector<std::vector<Transfer>> rounds;
  for (const Stage& stage : even_stages(p, q))
    for (int i = 0; i < stage.rounds; ++i) {
      auto& round = rounds.emplace_back();
      for (const MessageSequence& s : stage.sequences) {
        const auto [lo, hi] = s.range(i);
        for (int j = lo; j <= hi; ++j) {
          if (!s.when(i, j)) continue;
          const int from = mod(s.sender(i) + static_cast<long>(s.stride) * j, N);
          round.push_back({from, mod(from + s.dir, N), s.message(i, j), s.label});
        }
      }
    }
  return rounds;
}

// Calls f(j) for every j in [lo, hi] with stride * j = y (mod n); stride is 1 or 2.
template <class F>
void for_each_solution(int stride, long y, int n, int lo, int hi, F f) {
  const int g = std::gcd(stride, n), period = n / g;
  const int r = mod(y, n);
  if (r % g != 0) return;
  const long inverse = (stride / g == 1) ? 1 : (period + 1) / 2;  // of 2 modulo an odd period
  const int j0 = mod((r / g) * inverse, period);
  for (int j = lo + mod(j0 - lo, period); j <= hi; j += period) f(j);
}

[[noreturn]] void conflict(const char* what, int position, int round) {
  throw std::logic_error(std::string("halfduplex ring planner: position ") + std::to_string(position) + " " + what +
                         " twice in round " + std::to_string(round));
}

// One position's rounds, found by solving each sequence's sender formula for j at this
// position (O(1) per sequence and round), never by listing the round's transfers.
std::vector<Step> even_position(int p, int q, int x) {
  const int N = p + q;
  std::vector<Step> steps;
  for (const Stage& stage : even_stages(p, q))
    for (int i = 0; i < stage.rounds; ++i) {
      Step& step = steps.emplace_back();
      const int t = static_cast<int>(steps.size()) - 1;
      for (const MessageSequence& s : stage.sequences) {
        const auto [lo, hi] = s.range(i);
        for_each_solution(s.stride, x - s.sender(i), N, lo, hi, [&](int j) {
          if (!s.when(i, j)) return;
          if (step.sends()) conflict("sends", x, t);
          step.send_to = mod(x + s.dir, N);
          step.send_message = s.message(i, j);
        });
        for_each_solution(s.stride, x - s.dir - s.sender(i), N, lo, hi, [&](int j) {
          if (!s.when(i, j)) return;
          if (step.receives()) conflict("receives", x, t);
          step.recv_from = mod(x - s.dir, N);
          step.recv_message = s.message(i, j);
        });
      }
    }
  return steps;
}

// ---- odd sizes: phantoms folded into real neighbours -------------------------------------

class Folding {
 public:
  Folding(int p, int q) : p_(p), q_(q), pp_(p + p % 2), qq_(q + q % 2) {}
  int padded_p() const { return pp_; }
  int padded_q() const { return qq_; }
  bool phantom_sender() const { return pp_ != p_; }
  bool phantom_receiver() const { return qq_ != q_; }
  // Where the phantoms live in the real ring.
  int sender_host() const { return p_ + q_ - 1; }                  // the last receiver
  int receiver_host() const { return p_ >= q_ ? p_ - 1 : p_; }   // a_{p-1} or b_0

  int real_position(int padded) const {
    if (padded < pp_) {
      if (!phantom_sender()) return padded;
      return padded == 0 ? sender_host() : padded - 1;
    }
    const int r = padded - pp_;
    if (!phantom_receiver()) return p_ + r;
    return r == 0 ? receiver_host() : p_ + r - 1;
  }
  int padded_position(int real) const {
    return real < p_ ? real + (phantom_sender() ? 1 : 0) : pp_ + (real - p_) + (phantom_receiver() ? 1 : 0);
  }
  // -1 for the phantom sender's message, which is never sent.
  int real_message(int padded) const { return phantom_sender() ? padded - 1 : padded; }
  // The padded positions whose work real position x does: its own, and a phantom it hosts.
  std::vector<int> identities(int x) const {
    std::vector<int> ids{padded_position(x)};
    if (phantom_sender() && x == sender_host()) ids.push_back(0);
    if (phantom_receiver() && x == receiver_host()) ids.push_back(pp_);
    return ids;
  }

 private:
  int p_, q_, pp_, qq_;
};

void require_sizes(int p, int q) {
  if (p < 1 || q < 1)
    throw std::invalid_argument("halfduplex ring: needs p >= 1 senders and q >= 1 receivers (got p=" +
                                std::to_string(p) + " q=" + std::to_string(q) + ")");
}

void require_position(int p, int q, int x) {
  if (x < 0 || x >= p + q)
    throw std::invalid_argument("ring position " + std::to_string(x) + " outside 0.." + std::to_string(p + q - 1));
}

}  // namespace

const char* to_string(Sequence s) {
  switch (s) {
    case Sequence::S1: return "#1";
    case Sequence::S2: return "#2";
    case Sequence::S3: return "#3";
    case Sequence::S4: return "#4";
    case Sequence::S4_1: return "#4-1";
    case Sequence::S4_2: return "#4-2";
    case Sequence::Ring: return "ring";
  }
  return "?";
}

int halfduplex_ring_rounds(int p, int q) {
  require_sizes(p, q);
  const Folding f(p, q);
  return f.padded_p() + f.padded_q() / 2;
}

int halfduplex_ring_busy_rounds(int p, int q) {
  // The idle rounds of the folded schedule, found by replay and checked for every
  // 1 <= p <= 40, 1 <= q <= 80 in the unit tests.
  const bool idle_last = q == 1 || (q == 2 && p % 2 == 1);
  const bool idle_first = p == 1 && q == 1;
  return halfduplex_ring_rounds(p, q) - (idle_last ? 1 : 0) - (idle_first ? 1 : 0);
}

Schedule halfduplex_ring_schedule(int p, int q) {
  require_sizes(p, q);
  const Folding f(p, q);
  Schedule out{p, q, p, {}};
  for (const auto& padded_round : even_global(f.padded_p(), f.padded_q())) {
    auto& round = out.rounds.emplace_back();
    for (const Transfer& t : padded_round) {
      const int message = f.real_message(t.message);
      const int from = f.real_position(t.from), to = f.real_position(t.to);
      if (message < 0 || from == to) continue;  // the phantom's message, or local to a host
      round.push_back({from, to, message, t.sequence});
    }
  }
  return out;
}

RankPlan halfduplex_ring_rank_plan(int p, int q, int position) {
  require_sizes(p, q);
  require_position(p, q, position);
  const Folding f(p, q);
  RankPlan plan{position, p, std::vector<Step>(static_cast<std::size_t>(halfduplex_ring_rounds(p, q)))};
  for (int identity : f.identities(position)) {
    const auto padded = even_position(f.padded_p(), f.padded_q(), identity);
    for (std::size_t t = 0; t < padded.size(); ++t) {
      const Step& in = padded[t];
      Step& out = plan.rounds[t];
      if (in.sends() && f.real_message(in.send_message) >= 0 && f.real_position(in.send_to) != position) {
        if (out.sends()) conflict("sends", position, static_cast<int>(t));
        out.send_to = f.real_position(in.send_to);
        out.send_message = f.real_message(in.send_message);
      }
      if (in.receives() && f.real_message(in.recv_message) >= 0 && f.real_position(in.recv_from) != position) {
        if (out.receives()) conflict("receives", position, static_cast<int>(t));
        out.recv_from = f.real_position(in.recv_from);
        out.recv_message = f.real_message(in.recv_message);
      }
    }
  }
  return plan;
}

}  // namespace collrepro::ring
