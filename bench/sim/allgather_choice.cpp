// Which allgather the simulated MPICH runs for long messages, for the simulation variant only
// (linked into collbench when COLLREPRO_SMPI is ON, with GNU ld --wrap=MPI_Allgather; see
// bench/sim/README.md).
//
// MPICH (and the papers' Cray MPICH) chooses MPI_Allgather's algorithm by the total size
// gathered: recursive doubling below 512 KiB on power-of-two communicators, Bruck below 80 KiB,
// and otherwise a ring: in step i every process passes the block it received in step i-1 on to
// its right neighbour (rank + 1). SimGrid 3.32's mpich selector makes the same choice, but what
// it runs for the last case, `allgather__ring`, is a shift: in step i process r sends its *own*
// block to r + i. With one process per node the two cost the same (each step every node sends
// and receives one block). With many processes per node they do not: every shift step at a
// distance of at least the processes per node takes all of a node's messages off the node, so
// its processes share the node's link for p - ppn of the p - 1 steps, while a ring over
// consecutive ranks leaves the node once per step. At 128 processes x 32 per node, 64 KiB per
// process, the shift took 25.3 ms against 1.19 ms at 1 per node (results/sim/README.md).
// So the ring case runs SimGrid's logical ring (`allgather__NTSLR`: rank + 1, forwarding, as
// MPICH's), and the other cases go to the configured selector as before. MPI_Allgatherv needs
// no wrapper: the selector's ring there (`allgatherv__mpich_ring`) is MPICH's.
#include <smpi/smpi.h>

#include <climits>
#include <cstddef>

namespace simgrid::smpi {
// SimGrid 3.32's logical-ring allgather (exported by libsimgrid; SimGrid installs no header
// for its collective algorithms). The signature is MPI_Allgather's.
int allgather__NTSLR(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                     MPI_Comm comm);
}  // namespace simgrid::smpi

extern "C" {
int __real_MPI_Allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                         MPI_Comm comm);
int __wrap_MPI_Allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                         MPI_Comm comm);
}

namespace {

// MPICH's bounds on the total gathered (MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE, _SHORT_MSG_SIZE).
constexpr std::size_t kLongAllgather = 524288;
constexpr std::size_t kShortAllgather = 81920;

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// True where MPICH runs its ring, and SimGrid's ring can run it: one contiguous block size on
// every rank (a basic type or one whose extent is its size), offsets within an int (the
// algorithm computes them in int).
bool mpich_picks_ring(int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  int size = 0, type_size = 0;
  MPI_Aint lb = 0, extent = 0;
  MPI_Comm_size(comm, &size);
  MPI_Type_size(rtype, &type_size);
  MPI_Type_get_extent(rtype, &lb, &extent);
  if (size < 2 || rcount <= 0 || lb != 0 || extent != type_size) return false;
  const std::size_t total = static_cast<std::size_t>(rcount) * static_cast<std::size_t>(type_size) *
                            static_cast<std::size_t>(size);
  if (total > static_cast<std::size_t>(INT_MAX)) return false;
  return !(is_power_of_two(size) && total < kLongAllgather) && total > kShortAllgather;
}

}  // namespace

int __wrap_MPI_Allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                         MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || !mpich_picks_ring(rcount, rtype, comm))
    return __real_MPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  if (sbuf == MPI_IN_PLACE) {  // as MPI_Allgather does: the own block is already in place
    int rank = 0, type_size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Type_size(rtype, &type_size);
    sbuf = static_cast<const char*>(rbuf) + static_cast<std::size_t>(rank) * static_cast<std::size_t>(rcount) *
                                                static_cast<std::size_t>(type_size);
    scount = rcount;
    stype = rtype;
  }
  return simgrid::smpi::allgather__NTSLR(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}
