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
// So the ring case runs MPICH's ring. SimGrid ships it as `allgatherv__mpich_ring` (the
// selector's ring for MPI_Allgatherv); with equal counts it is MPICH's Allgather ring, message for
// message: in step i every process sends block rank - i to rank + 1 and receives block
// rank - i - 1 from rank - 1. Its buffer offsets are (int displacement) x (type extent), so
// counting the blocks in words of up to 8 bytes (collrepro/words.hpp) lets it gather more than
// 2 GiB: seed 000's halfduplex-fc at 1024 x 8 gathers 768 blocks of 4 MiB. SimGrid's other rings
// compute byte offsets in int (`allgather__NTSLR`) or multiply rank by count in int
// (`allgather__ring`) and crash there. The other cases go to the configured selector as
// before (their totals are below 512 KiB). MPI_Allgatherv needs no wrapper.
#include <smpi/smpi.h>

#include <climits>
#include <cstddef>
#include <cstdio>
#include <vector>

#include "collrepro/mpi.hpp"
#include "collrepro/words.hpp"
#include "datatypes.hpp"
#include "sim_info.hpp"

namespace simgrid::smpi {
// SimGrid 3.32's MPICH ring allgatherv (exported by libsimgrid; SimGrid installs no header for
// its collective algorithms). The signature is MPI_Allgatherv's.
int allgatherv__mpich_ring(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts,
                           const int* rdispls, MPI_Datatype rtype, MPI_Comm comm);
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

// The bytes of one rank's block where MPICH runs its ring and the ring can run it (one
// contiguous block size on every rank); 0 otherwise.
std::size_t ring_block_bytes(int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const std::size_t element = collbench::sim::contiguous_bytes(rtype);
  if (size < 2 || rcount <= 0 || element == 0) return 0;
  const std::size_t block = static_cast<std::size_t>(rcount) * element;
  const std::size_t total = block * static_cast<std::size_t>(size);
  const bool ring = !(is_power_of_two(size) && total < kLongAllgather) && total > kShortAllgather;
  return ring ? block : 0;
}

// MPICH's ring over blocks of `block` bytes, counted in the widest word that divides them.
int mpich_ring(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, std::size_t block, MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const std::size_t word = collrepro::word_bytes(block);
  if (!collrepro::word_count(block * static_cast<std::size_t>(size), word)) {
    std::fprintf(stderr, "simulated MPI_Allgather: %zu blocks of %zu bytes exceed the int count of %zu-byte words\n",
                 static_cast<std::size_t>(size), block, word);
    return MPI_ERR_COUNT;
  }
  const int words = static_cast<int>(block / word);  // a block is at most the whole, which fits
  std::vector<int> counts(static_cast<std::size_t>(size), words), displs(counts.size());
  for (std::size_t r = 0; r < displs.size(); ++r) displs[r] = static_cast<int>(r) * words;
  return simgrid::smpi::allgatherv__mpich_ring(sbuf, scount, stype, rbuf, counts.data(), displs.data(),
                                               collrepro::word_type(word), comm);
}

}  // namespace

int __wrap_MPI_Allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                         MPI_Comm comm) {
  if (!collbench::sim::mpich_choices()) return __real_MPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  const std::size_t block = comm == MPI_COMM_NULL ? 0 : ring_block_bytes(rcount, rtype, comm);
  if (block == 0) return __real_MPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  return mpich_ring(sbuf, scount, stype, rbuf, block, comm);
}
