// Delay mode: a slower MPI library on demand, for calibrating the verdicts (a synthetic release).
//
//   COLLREPRO_PMPI_DELAY="allgather:>=64KiB:+10%"
//
// A list of rules separated by ',' or ';', each CALL:SIZE:AMOUNT:
//   CALL  allgather | allgatherv | neighbor_alltoall | neighbor_alltoallv ('-' for '_' too)
//   SIZE  *  |  >=BYTES  |  <=BYTES  |  BYTES..BYTES (both ends included)  |  BYTES (exactly),
//         BYTES a whole number with an optional unit B, KiB, MiB or GiB (powers of 1024)
//   AMOUNT  +N%   N in (0, 1000], decimals allowed: N % of the call's own duration more;
//           +Nus, +Nms  N in (0, 1 s]: a fixed time more (no amplification of a loaded machine's
//                 delays: a relative delay multiplies a preempted call's time with the rest)
// The first rule that names the call and whose size condition holds applies.
//
// Which calls are delayed (delay_rule): a call the application makes itself, never one the
// library makes while it serves a call (Entered, reentry.hpp), and
//   allgather, allgatherv            only on an intercommunicator: collbench's inter-group
//                                    `native` points; the algorithms' own MPI_Allgather(v) run on
//                                    intracommunicators (their groups' sub-communicators) and
//                                    are left alone;
//   neighbor_alltoall(v)             on any communicator: collbench's isomorphic natives
//                                    (mpi-neighbor, mpi-neighbor-remapped); the isomorphic
//                                    algorithms exchange point to point.
// The size is the per-process message bytes of the call: the largest block this process sends
// or receives (allgather: max(send block, receive block), so the senders and the receivers of a
// half-duplex call agree; the v variants: the largest count times the type size).
//
// The delayed call measures its own duration with PMPI_Wtime around the MPI library's call and
// then busy-waits N % of it (or the fixed time) more (a slower library, not an idle CPU). python/collrepro/
// installations/delay.py says which collbench points a rule affects.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace collrepro::pmpi {

enum class DelayCall { Allgather, Allgatherv, NeighborAlltoall, NeighborAlltoallv };

struct DelayRule {
  DelayCall call = DelayCall::Allgather;
  std::size_t min_bytes = 0;                       // inclusive
  std::size_t max_bytes = static_cast<std::size_t>(-1);  // inclusive
  double fraction = 0;                             // +10% -> 0.10
  double seconds = 0;                              // +2ms -> 0.002
  bool matches(DelayCall c, std::size_t bytes) const { return c == call && bytes >= min_bytes && bytes <= max_bytes; }
};

struct DelayError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr std::size_t kMaxDelayText = 4096;  // characters of COLLREPRO_PMPI_DELAY
constexpr std::size_t kMaxDelayRules = 64;
constexpr double kMaxDelaySeconds = 1.0;  // the largest fixed delay of one call

// The rules of `text` (the variable's value); DelayError with one line saying what is wrong
// (the caller names the variable). An empty text gives no rules.
std::vector<DelayRule> parse_delay(const std::string& text);

// The first rule of `rules` for this call and size, or nullptr.
const DelayRule* find_delay(const std::vector<DelayRule>& rules, DelayCall c, std::size_t bytes);

const char* to_string(DelayCall c);

}  // namespace collrepro::pmpi
