// Ring schedules for the half-duplex inter-group all-to-all broadcast (seed 000 §IV): pure
// data, no MPI. Library collplan; executed by algorithms/ring/ring_executor.cpp.
//
// The problem: p senders hold one k-byte message each (m_0 .. m_{p-1}); q receivers must all
// end with every message. The p + q processes sit on a logical ring of N = p + q
// positions: senders at positions 0 .. p-1 (sender j holds m_j), receivers at p .. N-1. A
// position may exchange only with its ring neighbours (x - 1) mod N and (x + 1) mod N, and in
// one round it sends at most one message and receives at most one message (seed 000 §II,
// the "bidirectional communication constraint").
//
// Two views of every schedule:
//  - the global schedule: per round, the list of transfers (from, to, message); O(rounds x
//    transfers) memory, for tests, drawings and analysis;
//  - one position's plan: per round, its one send and its one receive; O(p + q) time and
//    memory, computed without building the global schedule (what each MPI rank does, and
//    what a simulation of thousands of ranks needs).
// The unit tests check that the two views agree.
//
// Message m always starts at position m. For the half-duplex ring there are p messages;
// for the ring Allgather baseline there are N (receivers contribute dummy messages p .. N-1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace collrepro::ring {

// The paper's name for the pipeline a transfer belongs to ("#Concurrent #k" in Algorithms 1
// and 3); `Ring` for the baseline ring Allgather.
enum class Sequence : std::uint8_t { S1, S2, S3, S4, S4_1, S4_2, Ring };
const char* to_string(Sequence s);  // "#1", "#2", "#3", "#4", "#4-1", "#4-2", "ring"

struct Transfer {
  int from = 0;     // ring position of the sender
  int to = 0;       // ring position of the receiver
  int message = 0;  // message index (= the position where it starts)
  Sequence sequence = Sequence::Ring;
  friend bool operator==(const Transfer&, const Transfer&) = default;
};

struct Schedule {
  int p = 0;         // senders (positions 0 .. p-1)
  int q = 0;         // receivers (positions p .. p+q-1)
  int messages = 0;  // p (half-duplex ring) or p + q (ring Allgather with dummy blocks)
  std::vector<std::vector<Transfer>> rounds;
  int positions() const { return p + q; }
};

// One position's part of one round; -1 where it has nothing to do.
struct Step {
  int send_to = -1, send_message = -1;
  int recv_from = -1, recv_message = -1;
  bool sends() const { return send_to >= 0; }
  bool receives() const { return recv_from >= 0; }
  bool idle() const { return !sends() && !receives(); }
  friend bool operator==(const Step&, const Step&) = default;
};

struct RankPlan {
  int position = 0;
  int messages = 0;
  std::vector<Step> rounds;  // one entry per round of the schedule, idle rounds included
};

// ---- half-duplex ring all-to-all broadcast (seed 000 §IV) --------------------------------
// Cases (p, q >= 1):
//  - p = q, both even: Algorithm 1, verbatim;
//  - p > q, both even: the derived schedule (seed 000 §IV-E gives prose only): Algorithm 1
//    with h = q/2 and a stage 2 of p - q/2 rounds; it is Algorithm 1 when p = q;
//  - p < q, both even: Algorithm 3 with the corrected stage-2 sequence #4-2 (docs/errata.md)
//    and 003's line 58;
//  - p or q odd: collrepro's extension (halfduplex_ring_schedule.cpp): the even schedule
//    of p' = p + (p mod 2), q' = q + (q mod 2) with a phantom sender (index 0) and/or a
//    phantom receiver (first receiver) folded into a real neighbour.
// Throws std::invalid_argument when p < 1 or q < 1.
Schedule halfduplex_ring_schedule(int p, int q);
RankPlan halfduplex_ring_rank_plan(int p, int q, int position);
// Rounds of the schedule: p + q/2 for even p and q; p' + q'/2 with the padded sizes.
int halfduplex_ring_rounds(int p, int q);
// Rounds in which some transfer happens (the cost-model round count). Equal to
// halfduplex_ring_rounds except in a few degenerate odd cases (q = 1, or p odd and q = 2)
// where a phantom's traffic was all that the last (or, for p = q = 1, the first) round held.
int halfduplex_ring_busy_rounds(int p, int q);

// ---- ring Allgather baseline (seed 000 §IV-D, Table II) ----------------------------------
// Every position contributes one message (receivers a dummy one); in round s, position x
// sends message (x - s) mod N to x + 1 and receives (x - s - 1) mod N from x - 1:
// N - 1 rounds. Throws std::invalid_argument when p < 1 or q < 1.
Schedule ring_allgather_schedule(int p, int q);
RankPlan ring_allgather_rank_plan(int p, int q, int position);
inline int ring_allgather_rounds(int p, int q) { return p + q - 1; }

// ---- checking (replay_schedule.cpp) ------------------------------------------------------
// Every position's plan read off the global schedule (entry x is position x), in one pass.
// Throws std::logic_error if a position sends (or receives) twice in one round.
std::vector<RankPlan> project(const Schedule& schedule);

// Replays a schedule, message by message, on the ring. A transfer that breaks a rule is
// reported and not delivered (so a later dependent send is reported as well).
struct Replay {
  std::vector<std::string> violations;  // "round 3: 2 -> 4 is not a ring link", ...
  int transfers = 0;
  int redundant = 0;              // deliveries of a message the receiver already held
  int idle_rounds = 0;            // rounds without any transfer
  int incomplete_receivers = 0;   // receivers missing at least one of m_0 .. m_{p-1}
  bool ok() const { return violations.empty(); }
  std::string summary(std::size_t max_lines = 5) const;
};
// Rules: positions in range, neighbours only, at most one send and one receive per position
// per round, the sender holds the message at the start of the round, and at the end every
// receiver holds m_0 .. m_{p-1} (an incomplete receiver is a violation).
Replay replay(const Schedule& schedule);

}  // namespace collrepro::ring
