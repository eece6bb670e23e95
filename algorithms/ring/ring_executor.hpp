// The MPI side shared by the ring algorithms (halfduplex-ring, ring-allgather): what a
// half-duplex Allgather shape means on the ring, and one executor that runs any ring plan
// (collrepro/ring_schedule.hpp) with one MPI_Sendrecv per round.
//
// Ring positions: the sender group's processes take positions 0 .. p-1 in their local rank
// order, the receiver group's take p .. p+q-1 in theirs; position x talks to the rank of
// that process in GroupPair::both(). Where the groups sit on nodes is decided by the
// GroupPair's `sides` (block, interleaved, ...), never by the ring algorithms.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include "collrepro/intergroup.hpp"
#include "collrepro/ring_schedule.hpp"

namespace collrepro::ring {

// Who sends in a half-duplex Allgather shape, how many, and how much.
struct Direction {
  int sender_side = 0;  // 0: group A sends (ka > 0); 1: group B sends (kb > 0)
  int p = 0;            // senders
  int q = 0;            // receivers
  std::size_t k = 0;    // bytes per message
};

// The checks both ring algorithms make in supports(): one direction only, uniform blocks,
// a block size MPI can count, both groups non-empty.
Support check_half_duplex(const inter::Shape& shape);
// The direction of a shape that passed check_half_duplex; nullopt when neither group has
// data (the call is a no-op).
std::optional<Direction> direction_of(const inter::Shape& shape);
// Seed 000 §IV-D: any ring algorithm needs (p + q/2 - 1)(t_s + k t_w), and a receiver takes
// at least p messages through its single port: max(p, p + q/2 - 1) rounds of k bytes.
Cost ring_lower_bound(const inter::Shape& shape);
// rounds x (t_s + k t_w) for the shape's k; zero when the call is a no-op.
Cost rounds_cost(const inter::Shape& shape, double rounds);

// A function returning one position's plan, e.g. halfduplex_ring_rank_plan.
using RankPlanner = RankPlan (*)(int p, int q, int position);

// Builds this process's plan (planner(p, q, my position), O(p + q)), maps every message to
// its place (the sender's own message: args.send; on a receiver m_j: args.recv +
// recv_displs[j]; anything relayed or a dummy block: a scratch block) and returns a runner
// whose run() is one MPI_Sendrecv per busy round on pair.both(), MPI_PROC_NULL where the
// process only sends or only receives, and no copies. The direction is read off the
// process's own arguments, as in MPI: send_bytes > 0 on senders, recv_counts > 0 on
// receivers, both 0: no-op. Throws std::invalid_argument on full-duplex or non-uniform
// arguments, std::logic_error if the plan would leave a receiver incomplete.
// Phases (timing.phases): one, "call". A ring is one pipeline whose rounds overlap between
// ranks; the whole call is its one step (the phases file still records it).
// form: nonblocking or persistent gives a StartedRunner whose rounds are the same exchanges as
// MPI_Irecv / MPI_Isend pairs (or their persistent requests, built here); a process with nothing
// to do gets a runner that does nothing, in every form.
std::unique_ptr<Runner> prepare_ring(const GroupPair& pair, const inter::Args& args, RankPlanner planner,
                                     CallForm form = CallForm::Blocking, const Capabilities& caps = {});

}  // namespace collrepro::ring
