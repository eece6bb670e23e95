// Everything the library keeps for one communicator, attached to it with an attribute keyval
// and freed by the keyval's delete callback when the application frees the communicator (or
// at MPI_Finalize, for those it never frees). Created at the first intercepted call on the
// communicator; the expensive, collective parts (the GroupPair of an intercommunicator, the
// isomorphic detection) are built once, inside it, and only when a call needs them.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "collrepro/group_pair.hpp"
#include "collrepro/intergroup.hpp"
#include "iso_topology.hpp"
#include "plan_cache.hpp"

namespace collrepro::pmpi {

// Allgather plans are keyed by what every process of both groups derives alike (its send and
// receive block), so any number may be kept. Allgatherv keys differ between processes: its
// single plan is reused only when every process agrees (one MPI_Allreduce per call).
struct InterKey {
  Collective collective;
  std::size_t send_bytes;
  std::vector<std::size_t> recv_counts, recv_displs;
  bool operator==(const InterKey&) const = default;
};

class ServedCall;  // requests.hpp

// MPI_Iallgather(v): the served calls of a communicator run on kNonblockingSlots lanes, each with
// its own GroupPair (communicators duplicated from the application's), so that outstanding calls
// on different lanes never match each other's messages or sub-collectives, whatever order the
// processes complete them in (an algorithm's rounds are posted as the wait progresses, and a
// process with nothing to do in a round skips it). The n-th served call on the communicator takes
// lane n mod kNonblockingSlots, the same lane on every process (every process makes the calls in
// the same order); the first call that takes a lane builds its GroupPair, and the first call of a
// key on a lane prepares that key's Runner there (both collective over the two groups). A lane
// still busy with an earlier call completes that call first. A served call holds its slot and
// lane, so both outlive the plan and the communicator.
inline constexpr std::size_t kNonblockingSlots = 4;

struct Lane {
  explicit Lane(MPI_Comm inter) : pair(GroupPair::from_intercomm(inter)) {}
  GroupPair pair;
  ServedCall* busy = nullptr;  // the call running on it, until it completes
};

// One key's Runner on one lane.
struct NonblockingSlot {
  std::shared_ptr<Lane> lane;
  inter::Args args;  // the layout; the buffers are set at every start
  std::unique_ptr<Runner> runner;
};

struct NonblockingSlots {
  std::vector<std::shared_ptr<NonblockingSlot>> slots;  // by lane, built on first use
};

struct InterState {
  explicit InterState(MPI_Comm inter) : pair(GroupPair::from_intercomm(inter)) {}
  GroupPair pair;
  PlanCache<InterKey, inter::Args> allgather{8};
  PlanCache<InterKey, inter::Args> allgatherv{1};
  PlanCache<InterKey, NonblockingSlots> iallgather{8};   // the choice; `args` holds the slots, no runner
  PlanCache<InterKey, NonblockingSlots> iallgatherv{1};  // one, as allgatherv: its keys differ by process
  std::vector<std::shared_ptr<Lane>> lanes;               // built on first use
  std::size_t nonblocking_calls = 0;                      // served nonblocking calls so far
};

// Isomorphic plans are local (no collective set-up) and bound to buffer addresses.
struct IsoKey {
  Collective collective;
  const std::byte* send;
  const std::byte* recv;
  std::vector<std::size_t> send_counts, send_displs, recv_counts, recv_displs;
  bool operator==(const IsoKey&) const = default;
};

struct IsoState {
  std::optional<IsoTopology> topology;  // nullopt: not isomorphic, every call goes native
  PlanCache<IsoKey, iso::Args> plans{16};
};

struct Context {
  // Built by the first inter-group call; shared with the served nonblocking and persistent calls,
  // which may outlive the communicator (the application may free it before their requests).
  std::shared_ptr<InterState> inter;
  // Built by the first neighbourhood call; shared with the served nonblocking and persistent
  // calls (their runners work on its communicator), which may outlive the communicator.
  std::shared_ptr<IsoState> iso;
  std::vector<std::byte> send_scratch;  // staging of non-contiguous datatypes (staging.hpp)
  std::vector<std::byte> recv_scratch;
};

// The context of `comm`, created (and attached) on first use.
Context& context_of(MPI_Comm comm);

// Deletes every context still attached (MPI_Finalize, before the MPI library finalizes).
void release_contexts();

// Contexts alive in this process.
long live_contexts();

}  // namespace collrepro::pmpi
