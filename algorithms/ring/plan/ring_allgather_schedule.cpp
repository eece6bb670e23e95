// ring-allgather schedule: the baseline of seed 000's ring experiments (pure planner, no MPI).
//
// Source: seed 000 §II and §IV-D, Table II ("Intra-Allgather"): all p + q processes run the
//   standard ring Allgather, receivers contributing dummy messages ("treating all processes
//   as senders and receivers with the help of dummy messages").
// Cost: (p + q - 1)(t_s + k t_w): N - 1 rounds, every position sends and receives k bytes in
//   every round.
// Cases: every p >= 1, q >= 1 (no parity condition). Message m starts at position m; the
//   receivers' dummy messages are p .. N-1 and are sent like the others.
// Rounds: in round s (0 .. N-2) position x sends message (x - s) mod N to (x + 1) mod N and
//   receives message (x - s - 1) mod N from (x - 1) mod N.
#include <stdexcept>
#include <string>

#include "collrepro/ring_schedule.hpp"

namespace collrepro::ring {
namespace {

int mod(int a, int n) { return ((a % n) + n) % n; }

void require_sizes(int p, int q) {
  if (p < 1 || q < 1)
    throw std::invalid_argument("ring allgather: needs p >= 1 and q >= 1 (got p=" + std::to_string(p) +
                                " q=" + std::to_string(q) + ")");
}

// The message position x passes on in round s: the one it received in round s - 1 (its own
// in round 0).
int forwarded_message(int x, int s, int N) { return mod(x - s, N); }

}  // namespace

Schedule ring_allgather_schedule(int p, int q) {
  require_sizes(p, q);
  const int N = p + q;
  Schedule out{p, q, N, std::vector<std::vector<Transfer>>(static_cast<std::size_t>(ring_allgather_rounds(p, q)))};
  for (int s = 0; s < N - 1; ++s)
    for (int x = 0; x < N; ++x)
      out.rounds[static_cast<std::size_t>(s)].push_back({x, mod(x + 1, N), forwarded_message(x, s, N), Sequence::Ring});
  return out;
}

RankPlan ring_allgather_rank_plan(int p, int q, int position) {
  require_sizes(p, q);
  const int N = p + q;
  if (position < 0 || position >= N)
    throw std::invalid_argument("ring position " + std::to_string(position) + " outside 0.." + std::to_string(N - 1));
  RankPlan plan{position, N, {}};
  for (int s = 0; s < N - 1; ++s)
    plan.rounds.push_back({mod(position + 1, N), forwarded_message(position, s, N), mod(position - 1, N),
                           forwarded_message(mod(position - 1, N), s, N)});
  return plan;
}

}  // namespace collrepro::ring
