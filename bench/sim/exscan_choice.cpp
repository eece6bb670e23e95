// Which exclusive scan the simulated library runs, for the simulation variant only (linked into
// collbench when COLLREPRO_SMPI is ON, with GNU ld --wrap=MPI_Exscan; see bench/sim/README.md).
//
// fullduplex-allgatherv (seed 001's Algorithm 2) finds where its block starts with MPI_Exscan
// inside the timed call. SimGrid 3.32 has no algorithm choice for MPI_Exscan: every rank sends
// its value to every higher rank, so a group of p processes exchanges p (p - 1) / 2 messages,
// the last rank receives p - 1 of them, and each completion walks SimGrid's request lists
// (the simulation's CPU time grows with p^2; a 224-process group of seed 001's 25:7 settings
// sends 24 976 messages per call). On a contention-free network those messages all fly at once,
// so the simulated time is about one message's: less than either library's algorithm (at 50
// processes on the crossbar, Allreduce + Exscan took 8.3 us against 13.1 us with MPICH's).
// Neither real library does that:
//   - MPICH (MPIR_Exscan_intra_recursive_doubling, its only intra-communicator algorithm):
//     ceil(log2 p) rounds; in round k every rank exchanges its partial sum with rank ^ 2^k
//     (when that rank exists) and, from a lower partner, adds the partner's sum to its result.
//   - Open MPI 4.1 (coll/basic: coll/tuned leaves MPI_Exscan to it unless its dynamic rules are on):
//     a chain. Rank r waits for rank r - 1's prefix, adds its own value and passes it to
//     r + 1, so p - 1 messages one after another.
// This wrapper runs the first with the mpich selector (MPICH's choices, the papers' Cray
// MPICH) and the second with simrun --coll-selector ompi (collbench::sim::mpich_choices()).
// Both combine in rank order (MPI_Reduce_local with the lower ranks' value on the left), so a
// non-commutative operation gives the standard's result; MPI_IN_PLACE and non-contiguous types
// go to SimGrid's own. MPI_Iexscan (the nonblocking form) is left to SimGrid.
#include <smpi/smpi.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "datatypes.hpp"
#include "sim_info.hpp"

extern "C" {
int __real_MPI_Exscan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int __wrap_MPI_Exscan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
}

namespace {

// The tag of the scans' messages: collbench's own tags are below 10000 and it posts no receive
// for any tag (bcast_choice.cpp's scatter uses 31013).
constexpr int kScanTag = 31014;

// MPICH's recursive doubling. `partial` holds the sum of the ranks this rank has heard from,
// itself included; `rbuf` the sum of the lower ones among them (rank 0's stays untouched).
int recursive_doubling(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                       std::size_t bytes) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<unsigned char> partial(bytes), incoming(bytes);
  std::memcpy(partial.data(), sbuf, bytes);
  bool have_lower = false;
  for (int mask = 1; mask < size; mask <<= 1) {
    const int partner = rank ^ mask;
    if (partner >= size) continue;
    if (const int rc = MPI_Sendrecv(partial.data(), count, type, partner, kScanTag, incoming.data(), count, type,
                                    partner, kScanTag, comm, MPI_STATUS_IGNORE);
        rc != MPI_SUCCESS)
      return rc;
    if (partner < rank) {  // the partner's ranks come before mine: its sum is the left operand
      MPI_Reduce_local(incoming.data(), partial.data(), count, type, op);
      if (have_lower)
        MPI_Reduce_local(incoming.data(), rbuf, count, type, op);
      else
        std::memcpy(rbuf, incoming.data(), bytes);
      have_lower = true;
    } else {  // they come after mine: partial = partial op incoming
      MPI_Reduce_local(partial.data(), incoming.data(), count, type, op);
      partial.swap(incoming);
    }
  }
  return MPI_SUCCESS;
}

// Open MPI 4.1's chain: receive the prefix of ranks 0..r-1 from r - 1, pass on prefix op mine.
int chain(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, std::size_t bytes) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<unsigned char> out(bytes);
  std::memcpy(out.data(), sbuf, bytes);
  if (rank > 0) {
    if (const int rc = MPI_Recv(rbuf, count, type, rank - 1, kScanTag, comm, MPI_STATUS_IGNORE); rc != MPI_SUCCESS)
      return rc;
    MPI_Reduce_local(rbuf, out.data(), count, type, op);  // out = prefix op mine
  }
  return rank + 1 < size ? MPI_Send(out.data(), count, type, rank + 1, kScanTag, comm) : MPI_SUCCESS;
}

}  // namespace

int __wrap_MPI_Exscan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const std::size_t element = collbench::sim::contiguous_bytes(type);
  if (comm == MPI_COMM_NULL || count <= 0 || element == 0 || sbuf == MPI_IN_PLACE)
    return __real_MPI_Exscan(sbuf, rbuf, count, type, op, comm);
  const std::size_t bytes = static_cast<std::size_t>(count) * element;
  return collbench::sim::mpich_choices() ? recursive_doubling(sbuf, rbuf, count, type, op, comm, bytes)
                                         : chain(sbuf, rbuf, count, type, op, comm, bytes);
}
