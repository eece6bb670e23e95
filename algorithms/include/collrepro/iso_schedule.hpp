// Communication schedules of the isomorphic collectives (seed 004 §3, §5), as pure data.
//
// A schedule is the list of steps that EVERY process executes identically; it is computed
// locally from the neighbourhood alone (the isomorphic assertion), so all processes agree
// without communicating. One step = one MPI_Sendrecv: send to R ⊕ offset, receive from
// R ⊖ offset. Its send side is a list of parts (buffer, slot) combined into one message,
// its receive side likewise; the k-th send part of the sender lands in the k-th receive part
// of the receiver, so both lists describe blocks of the same sizes in the same order.
//
// Buffers, at every process:
//   Send  the user's send buffer, read only: slot i = block i (all-to-all), slot 0 = the one
//         block (allgather);
//   Recv  the user's receive buffer: slot i = block i, from R ⊖ C^i;
//   Inter the intermediate buffer the executor allocates: inter_block[k] says which receive
//         block's size slot k has (all-to-all: slot i mirrors block i).
// After the communication steps the `local` step runs with offset 0 (a send-receive with
// oneself): it delivers what needs no network (zero offsets, duplicate allgather offsets).
//
// The builders (one algorithm per file in algorithms/isomorphic/*_schedule.cpp):
//   straightforward_schedule   Listing 4: s steps, one block each
//   torus_alltoall_schedule    Algorithm 1 (corrected): D steps, volume V
//   direct_alltoall_schedule   §5 torus direct: R_dir steps, volume V_dir
//   torus_allgather_schedule   §3.2 prefix trie, hop by hop: D steps, volume W_hop
//   direct_allgather_schedule  §5 torus direct on the prefix trie: R_dir steps, volume W_dir
// counts() gives the same quantities from their closed definitions (seed 004 §3, §5), so the unit
// tests compare two independent computations. simulate() executes a schedule symbolically on
// a small torus; check_steps() verifies the per-step invariants. Pure: no MPI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collrepro/neighborhood.hpp"
#include "collrepro/cost.hpp"

namespace collrepro::iso {

enum class Pattern { Alltoall, Allgather };  // all-to-all(v, w) share the Alltoall schedules

enum class Buf : std::uint8_t { Send, Recv, Inter };
const char* to_string(Buf b);

struct Part {
  Buf buf = Buf::Send;
  int slot = 0;
  friend bool operator==(const Part&, const Part&) = default;
};

struct Step {
  Offset offset;           // send to R ⊕ offset, receive from R ⊖ offset
  std::vector<Part> send;  // combined into one message, in this order
  std::vector<Part> recv;  // same length; recv[k] receives what the sender's send[k] holds
};

struct Schedule {
  Pattern pattern = Pattern::Alltoall;
  std::size_t blocks = 0;        // s
  std::vector<Step> steps;       // the communication steps
  Step local;                    // offset 0, run last; empty if nothing is local
  std::vector<int> inter_block;  // size of Inter slot k = size of receive block inter_block[k]

  std::size_t rounds() const { return steps.size(); }
  std::size_t volume() const;  // blocks sent per process over all steps (block-hops)
  // The block whose size part p has: all-to-all: its index; allgather: 0 (one size).
  int size_class(const Part& p) const;
};

// Listing 4 (and its allgather analogue): step i sends block i (allgather: the one block)
// straight to R ⊕ C^i. Self offsets become send-receives with oneself.
Schedule straightforward_schedule(const Neighborhood& n, Pattern pattern);

// How Algorithm 1 decides that a block is sent from the send buffer. The paper's literal
// `firstround[i] == j` re-sends sendbuf[i] on every hop of the first nonzero dimension, which
// is wrong whenever |c^i_j| >= 2 there. LiteralFirstround exists only for the regression test
// that demonstrates the erratum; every algorithm uses Corrected (first hop only).
enum class FirstHop { Corrected, LiteralFirstround };
Schedule torus_alltoall_schedule(const Neighborhood& n, FirstHop rule = FirstHop::Corrected);
Schedule direct_alltoall_schedule(const Neighborhood& n);

// Allgather over the prefix trie, visiting the dimensions in `order` (a permutation of
// 0..d-1; any order is correct and has the same round count, only the volume changes).
// Without an order: allgather_dimension_order(n).
Schedule torus_allgather_schedule(const Neighborhood& n);
Schedule torus_allgather_schedule(const Neighborhood& n, std::span<const int> order);
Schedule direct_allgather_schedule(const Neighborhood& n);
Schedule direct_allgather_schedule(const Neighborhood& n, std::span<const int> order);

// The paper's heuristic (§3.2): visit the dimensions "in decreasing number of neighbors
// having the same coordinate value", read as: largest class of equal c_j first; ties keep
// the natural order (so symmetric neighbourhoods use 0..d-1).
std::vector<int> allgather_dimension_order(const Neighborhood& n);

// Closed definitions (seed 004 §3.1, §3.2, §5; docs/algorithms/torus.md;
// W with allgather_dimension_order):
//   D     = sum_j [max_i max(c_j,0) + max_i max(-c_j,0)]     torus rounds (a2a and allgather)
//   V     = sum_i ||C^i||                                    torus a2a volume (blocks)
//   W_hop = sum over trie nodes P [max(0, max ch(P)) + max(0, -min ch(P))]   torus allgather
//   W_edge= sum over trie edges |weight|                     (the literal reading, not used)
//   R_dir = sum_j #distinct nonzero c_j                      direct rounds
//   V_dir = sum_i nnz(C^i)                                   direct a2a volume
//   W_dir = #trie edges with nonzero weight                  direct allgather volume
struct Counts {
  std::size_t s = 0, D = 0, V = 0, W_hop = 0, W_edge = 0, R_dir = 0, V_dir = 0, W_dir = 0;
};
Counts counts(const Neighborhood& n);
Counts counts(const Neighborhood& n, std::span<const int> allgather_order);

// The alpha-beta prediction of a schedule: one start-up per communication step, and the
// bytes received per process over all steps (the local step is free, as in the paper's
// model). recv_bytes[i] is the size of receive block i.
Cost schedule_cost(const Schedule& s, std::span<const std::size_t> recv_bytes);
// The largest combined message of one step, in bytes.
std::size_t max_step_bytes(const Schedule& s, std::span<const std::size_t> recv_bytes);

// Per-step invariants, independent of any torus: send and receive lists of equal length with
// equal size classes; nothing written to Send; no (buffer, slot) both read and written in a
// step; no slot written twice in a step; slots in range. nullopt when all hold.
std::optional<std::string> check_steps(const Schedule& s);

// Executes the schedule symbolically on the periodic torus `dims` (every process runs every
// step) and checks the result: receive slot i at R holds block i of R ⊖ C^i (all-to-all) or
// the block of R ⊖ C^i (allgather). nullopt when correct, else the first wrong slot.
std::optional<std::string> simulate(const Schedule& s, const Neighborhood& n, std::span<const int> dims);

}  // namespace collrepro::iso
