// The nonblocking and persistent calls of the project's schedules (the inter-group and ring
// algorithms, the intra family's mock-ups), as rounds:
// a round is a set of operations that may run at once (point-to-point messages and collectives on
// the algorithm's communicators), optionally after some local work (a copy) that needs the rounds
// before it. start() starts the first round and returns; wait() completes it, then starts and
// completes each next round in turn, so the schedule progresses in MPI_Wait without a helper
// thread.
//   nonblocking: every operation is posted at each start (MPI_Isend, MPI_Irecv, MPI_Iallgatherv,
//                MPI_Ibcast, MPI_Igatherv, ...);
//   persistent:  every operation is built once, here at init (MPI_Send_init, MPI_Recv_init and the
//                library's persistent collectives, collrepro/persistent.hpp); a start only starts
//                them (MPI_Startall).
// Workaround: where the library's persistent collectives fail the capability probe
// (capabilities.hpp, intra_persistent), a persistent call keeps its persistent point-to-point
// requests and posts the nonblocking collectives at each start instead.
// An algorithm describes its rounds once, in the order of its blocking call; the form only
// chooses which MPI call each operation becomes. Arguments are read when an operation is built
// (persistent) or posted (nonblocking): a count that an earlier round computes is read from its
// variable at post time, so a nonblocking schedule may depend on what it received.
// Buffers: a nonblocking schedule is prepared once and may be called on new buffers (the PMPI
// library prepares one per shape and rebinds the application's buffers in its Args before every
// call), so a schedule names the buffers of its Args through a SourceAt / ResultAt that reads
// them, never through the pointer the Args held when it was prepared. tests/mpi/inter_check.cpp
// prepares every nonblocking schedule on decoy buffers and runs it on others.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "collrepro/mpi.hpp"
#include "collrepro/persistent.hpp"
#include "collrepro/registry.hpp"

namespace collrepro {

// True when the pieces are equal and follow each other in rank order (an Allgather's layout):
// an in-place Allgatherv of them is then called as an Allgather, which libraries tune better.
bool uniform_in_rank_order(const std::vector<int>& counts, const std::vector<int>& displs);

// Where an operation's buffer is, read when the operation is built (persistent) or posted
// (nonblocking).
using SourceAt = std::function<const std::byte*()>;
using ResultAt = std::function<std::byte*()>;

class StartedRounds {
 public:
  // form: nonblocking or persistent.
  StartedRounds(CallForm form, const Capabilities& caps);

  // Opens the next round; `before`, if given, runs just before its operations start.
  void next_round(std::function<void()> before = {});

  // Operations of the current round. Pointer and count arguments as the MPI call takes them,
  // read at build or post time (see above).
  void send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
  void recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm);
  // An in-place Allgatherv over comm; Allgather where the pieces are equal and in rank order
  // (uniform_in_rank_order, below). counts and displs must outlive the call. Over a
  // communicator of one process it adds nothing (it would move nothing); so does bcast().
  void allgatherv_in_place(MPI_Comm comm, std::byte* result, const std::vector<int>& counts,
                           const std::vector<int>& displs, const std::string& what);
  // The same with the result buffer read at build or post time (a caller that rebinds it).
  void allgatherv_in_place(MPI_Comm comm, std::function<std::byte*()> result, const std::vector<int>& counts,
                           const std::vector<int>& displs, const std::string& what);
  void bcast(std::function<void*()> buf, std::function<int()> count, MPI_Datatype type, int root, MPI_Comm comm,
             const std::string& what);
  void gather(const void* send, int send_count, MPI_Datatype send_type, void* recv, int recv_count,
              MPI_Datatype recv_type, int root, MPI_Comm comm, const std::string& what);
  // send, send_count, recv, counts and displs are read at build or post time (a count gathered
  // in an earlier round of a nonblocking call).
  void gatherv(std::function<const void*()> send, std::function<int()> send_count, MPI_Datatype type, std::function<void*()> recv,
               const std::vector<int>& counts, const std::vector<int>& displs, int root, MPI_Comm comm,
               const std::string& what);
  // A send that an earlier round plans: built (persistent) or posted (nonblocking) only where
  // count() > 0 at that time, as a blocking call sends no empty piece and its receiver expects none.
  void send_nonempty(std::function<const void*()> buf, std::function<int()> count, MPI_Datatype type, int dest,
                     int tag, MPI_Comm comm);
  // The sum over comm of one 64-bit count (MPI_Iallreduce), and its exclusive prefix sum
  // (MPI_Iexscan; rank 0's `out` is left as it was). Posted at each start in either form: a
  // persistent call knows its counts at init and plans with blocking calls there instead.
  void iallreduce_sum(const std::uint64_t* in, std::uint64_t* out, MPI_Comm comm, const std::string& what);
  void iexscan_sum(const std::uint64_t* in, std::uint64_t* out, MPI_Comm comm, const std::string& what);
  // A point-to-point operation whose buffer and count are read at build or post time.
  void send(std::function<const void*()> buf, std::function<int()> count, MPI_Datatype type, int dest, int tag,
            MPI_Comm comm);
  void recv(std::function<void*()> buf, std::function<int()> count, MPI_Datatype type, int source, int tag,
            MPI_Comm comm);

  void start();
  void wait();

 private:
  // Starts (persistent) or posts (nonblocking) an operation into a request.
  using Call = std::function<int(MPI_Request*)>;
  struct Posted {
    Call call;
    std::string what;
  };
  struct Round {
    std::function<void()> before;
    PersistentRequests built;   // built at init, started per call
    std::vector<Posted> posts;  // posted per call
    Requests posted;
  };

  // Builds `init` now where this form and library make the operation persistent, else keeps `post`.
  void add(bool collective, const Call& init, const std::string& init_what, Call post, std::string post_what);
  // Keeps `post` for every start, whatever the form.
  void post_each_start(Call post, std::string what);
  void begin(Round& r);

  bool p2p_persistent_, coll_persistent_;
  std::deque<Round> rounds_;  // a deque: a round's requests never move
};

}  // namespace collrepro
