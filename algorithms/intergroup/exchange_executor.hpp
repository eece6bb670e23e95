// The MPI executor shared by the fully connected inter-group algorithms: carries out an
// ExchangePlan (pieces between the groups, then one in-place intra-group Allgatherv), and
// stages the contiguous remote result when the user's displacements are not contiguous.
// The same two steps also become rounds of a nonblocking or persistent call (started_rounds.hpp).
#pragma once

#include <functional>
#include <vector>

#include "collrepro/buffers.hpp"
#include "collrepro/exchange_plan.hpp"
#include "collrepro/group_pair.hpp"
#include "collrepro/intergroup.hpp"
#include "collrepro/started_rounds.hpp"

namespace collrepro::inter {

// The contiguous remote result (block j at the running sum of counts): the user's receive
// buffer itself when its displs are contiguous, otherwise a scratch buffer whose blocks
// finish() copies to their displs.
class ResultStage {
 public:
  explicit ResultStage(const Args& args);
  std::byte* data() { return staged_ ? scratch_.data() : args_.recv; }
  // data() read when an operation is built or posted.
  ResultAt at() {
    return [this] { return data(); };
  }
  void finish();

 private:
  const Args& args_;
  bool staged_;
  Buffer scratch_;
};

// The buffers of `args` (which must outlive the rounds), read when an operation is built or posted.
inline SourceAt send_of(const Args& args) {
  return [&args] { return args.send; };
}
inline ResultAt recv_of(const Args& args) {
  return [&args] { return args.recv; };
}

class ExchangeExecutor {
 public:
  // ordered: receive in the plan's order with blocking receives (sends posted first);
  // otherwise post every receive and send, then wait for all.
  ExchangeExecutor(const GroupPair& pair, bool ordered);

  void exchange(const std::byte* send, const std::vector<Transfer>& sends, std::byte* result,
                const std::vector<Transfer>& recvs) const;
  // In-place MPI_Allgatherv over my group of the pieces at the given displacements.
  void gather(std::byte* result, const std::vector<int>& counts, const std::vector<int>& displs) const;
  // The same exchange and gather, each as the next round of a nonblocking or persistent call
  // (every receive and send of the exchange at once, whatever `ordered`). `send` and `result`
  // are read when an operation is built or posted (started_rounds.hpp: a nonblocking call may
  // come with new buffers); the plans, counts and displs must outlive `rounds`.
  void exchange(StartedRounds& rounds, SourceAt send, const std::vector<Transfer>& sends, ResultAt result,
                const std::vector<Transfer>& recvs) const;
  void gather(StartedRounds& rounds, ResultAt result, const std::vector<int>& counts,
              const std::vector<int>& displs) const;
  // The exchange as a round whose sends `plan` (run as the round starts; none: planned already)
  // writes into `per_peer`: one entry per remote rank, bytes 0 where my block sends it nothing.
  void exchange(StartedRounds& rounds, std::function<void()> plan, SourceAt send,
                const std::vector<Transfer>& per_peer, ResultAt result, const std::vector<Transfer>& recvs) const;

 private:
  const GroupPair& pair_;
  bool ordered_;
};

// In-place MPI_Allgatherv over `comm` of the pieces at the given displacements. When the
// pieces are equal and in rank order it calls MPI_Allgather instead, which libraries tune
// better: with MPICH 4.0.2 and 8 ranks on 2 cores, an Allgatherv of 4 x 1 MiB in each half took
// 1.56 s against 64 ms for the same MPI_Allgather (each ring step waits for a scheduler tick).
void allgatherv_in_place(MPI_Comm comm, std::byte* result, const std::vector<int>& counts,
                         const std::vector<int>& displs, const char* what);

std::vector<int> to_int_counts(const std::vector<std::size_t>& v, const char* what);

}  // namespace collrepro::inter
