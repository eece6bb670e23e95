// Which broadcast the simulated MPICH runs, for the simulation variant only (linked into
// collbench when COLLREPRO_SMPI is ON, with GNU ld --wrap=MPI_Bcast; see bench/sim/README.md).
//
// Two kinds of broadcast happen in a simulation, and no single SMPI setting suits both:
//   - the program's own (root gathering's result, halfduplex-fc's blocks): up to megabytes.
//     MPICH, like the papers' Cray MPICH, sends large messages by a binomial scatter and a ring
//     allgather (about twice the message per process). SimGrid's mpich selector would instead
//     pick an SMP-aware binomial tree (log2(p) times the message), so every large broadcast
//     here runs SMPI's scatter + ring-allgather algorithm (bcast__scatter_LR_allgather);
//   - SMPI's own 4-byte broadcast inside every communicator it creates (the new
//     communicator's id). Under the scatter + ring algorithm that costs p^2 simulated
//     messages per communicator: at 1024 ranks three minutes of start-up and most of a
//     point's set-up, at 2048 ranks far more. simrun sets smpi/bcast:binomial_tree, MPICH's
//     choice for short messages, which costs p messages.
// So the global setting is the binomial tree, and this wrapper sends the program's
// broadcasts of at least kShortBcast bytes through the scatter + ring algorithm: the same
// simulated messages as before the split, at every size the papers' configurations use.
// (MPICH picks scatter + recursive-doubling allgather between 12 KiB and 512 KiB on
// power-of-two communicators; the simulation keeps the ring there, as it always has.)
//
// Over 2 GiB SimGrid's algorithm cannot run: it computes the broadcast's size and every offset
// in int bytes. Root gathering broadcasts 3 GiB at seed 000's largest size (768 x 4 MiB, counted
// in 8-byte words). Those broadcasts run scatter_ring_bcast below: the same binomial scatter and
// ring allgather, message for message (the same pieces, zero-byte ones included, between the
// same ranks), with offsets in size_t. The environment variable COLLREPRO_SIM_WIDE_BCAST_FROM
// (bytes) lowers that bound, so that sim.wide can check on small, validated data that both
// give the same simulated times.
//
// Under `simrun --coll-selector ompi` (mpich_choices() false) every broadcast of the program
// runs Open MPI 4.1.4's choice instead, whole messages along Open MPI's trees (ompi_bcast.hpp
// says why SimGrid's ompi selector does not): ompi_bcast() below.
#include <smpi/smpi.h>

#include "datatypes.hpp"
#include "ompi_bcast.hpp"
#include "sim_info.hpp"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace simgrid::smpi {
// SimGrid 3.32's scatter + ring-allgather broadcast (exported by libsimgrid; SimGrid installs
// no header for its collective algorithms). The signature is MPI_Bcast's.
int bcast__scatter_LR_allgather(void* buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
// Open MPI's split binary tree and scatter + recursive-doubling allgather, as SimGrid 3.32 has them.
int bcast__ompi_split_bintree(void* buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int bcast__scatter_rdb_allgather(void* buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
}  // namespace simgrid::smpi

extern "C" {
int __real_MPI_Bcast(void* buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int __wrap_MPI_Bcast(void* buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
}

namespace {

// MPICH's bound between short (binomial tree) and longer broadcasts.
constexpr std::size_t kShortBcast = 12288;
// The tag of scatter_ring_bcast's messages: collbench's own tags are below 10000, and it posts
// no receive for any tag, so none of them can match these.
constexpr int kScatterRingTag = 31013;

std::size_t bcast_bytes(int count, MPI_Datatype datatype) {
  int type_size = 0;
  MPI_Type_size(datatype, &type_size);
  return static_cast<std::size_t>(count) * static_cast<std::size_t>(type_size);
}

// One message of a piece; false when it exceeds an int count of bytes.
bool fits(std::size_t bytes) { return bytes <= static_cast<std::size_t>(INT_MAX); }

// MPICH's long broadcast over n bytes at buf: the data are cut into pieces of ceil(n / p)
// bytes, piece i belonging to the process i places after the root (the last ones may be short
// or empty). A binomial scatter gives each process its piece, then a ring allgather passes
// pieces on to rank + 1 for p - 1 steps.
int scatter_ring_bcast(char* buf, std::size_t n, int root, MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const auto p = static_cast<std::size_t>(size);
  const std::size_t piece = (n + p - 1) / p;
  const auto rel = static_cast<std::size_t>((rank - root + size) % size);
  const auto at = [&](std::size_t i) { return std::min(n, i * piece); };  // start of piece i
  const auto actual = [&](std::size_t r) { return static_cast<int>((r + root) % p); };

  // Scatter: I hold pieces [rel, end); the parent (rel minus its lowest set bit) sends them.
  std::size_t mask = 1;
  std::size_t end = rel == 0 ? p : rel;
  while (mask < p) {
    if (rel & mask) {
      end = std::min(p, rel + mask);
      const std::size_t bytes = at(end) - at(rel);
      if (bytes > 0) {
        if (!fits(bytes)) return MPI_ERR_COUNT;
        if (const int rc = MPI_Recv(buf + at(rel), static_cast<int>(bytes), MPI_BYTE, actual(rel - mask),
                                    kScatterRingTag, comm, MPI_STATUS_IGNORE);
            rc != MPI_SUCCESS)
          return rc;
      }
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rel + mask >= end) continue;
    const std::size_t bytes = at(end) - at(rel + mask);
    if (bytes > 0) {
      if (!fits(bytes)) return MPI_ERR_COUNT;
      if (const int rc = MPI_Send(buf + at(rel + mask), static_cast<int>(bytes), MPI_BYTE, actual(rel + mask),
                                  kScatterRingTag, comm);
          rc != MPI_SUCCESS)
        return rc;
    }
    end = rel + mask;
  }

  // Ring allgather of the pieces: in step s I send piece rel - s + 1 and receive piece rel - s.
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (std::size_t step = 1; step < p; ++step) {
    const std::size_t out = (rel + p - step + 1) % p, in = (rel + p - step) % p;
    const std::size_t out_bytes = at(out + 1) - at(out), in_bytes = at(in + 1) - at(in);
    if (!fits(out_bytes) || !fits(in_bytes)) return MPI_ERR_COUNT;
    if (const int rc = MPI_Sendrecv(buf + at(out), static_cast<int>(out_bytes), MPI_BYTE, right, kScatterRingTag,
                                    buf + at(in), static_cast<int>(in_bytes), MPI_BYTE, left, kScatterRingTag, comm,
                                    MPI_STATUS_IGNORE);
        rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}

// The tag of ompi_bcast's messages (as kScatterRingTag: no receive of collbench's matches it).
constexpr int kOmpiTreeTag = 31014;

// Open MPI 4.1.4's broadcast of `bytes` bytes (ompi_bcast.hpp): a process receives the whole
// message from its parent, then sends it to all its children at once and waits for the sends.
int ompi_bcast(void* buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm, int size, std::size_t bytes) {
  namespace ompi = collbench::sim::ompi;
  const ompi::Bcast algorithm = ompi::bcast_choice(size, bytes);
  if (algorithm == ompi::Bcast::split_binary_tree)
    return simgrid::smpi::bcast__ompi_split_bintree(buf, count, datatype, root, comm);
  if (algorithm == ompi::Bcast::scatter_allgather)
    return simgrid::smpi::bcast__scatter_rdb_allgather(buf, count, datatype, root, comm);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const ompi::TreeNode node = ompi::tree_node(algorithm, rank, size, root);
  if (node.parent >= 0)
    if (const int rc = MPI_Recv(buf, count, datatype, node.parent, kOmpiTreeTag, comm, MPI_STATUS_IGNORE);
        rc != MPI_SUCCESS)
      return rc;
  std::vector<MPI_Request> sends(node.children.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < node.children.size(); ++i)
    if (const int rc = MPI_Isend(buf, count, datatype, node.children[i], kOmpiTreeTag, comm, &sends[i]);
        rc != MPI_SUCCESS)
      return rc;
  return sends.empty() ? MPI_SUCCESS : MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
}

}  // namespace

std::size_t collbench::sim::wide_bcast_from() {
  static const std::size_t from = [] {
    const std::size_t fallback = static_cast<std::size_t>(INT_MAX) + 1;
    const char* v = std::getenv("COLLREPRO_SIM_WIDE_BCAST_FROM");
    if (!v || !*v) return fallback;
    char* end = nullptr;
    const unsigned long long bytes = std::strtoull(v, &end, 10);
    if (*end != '\0' || *v == '-' || bytes > fallback) {
      std::fprintf(stderr, "COLLREPRO_SIM_WIDE_BCAST_FROM=%s: not a byte count from 0 to %zu; using %zu\n", v,
                   fallback, fallback);
      return fallback;
    }
    return static_cast<std::size_t>(bytes);
  }();
  return from;
}

int __wrap_MPI_Bcast(void* buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  int comm_size = 0;
  if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &comm_size);
  const std::size_t bytes = count < 0 ? 0 : bcast_bytes(count, datatype);
  // A broadcast of nothing moves nothing; SimGrid 3.32's ompi pipeline broadcast, which its ompi
  // selector picks on 2 processes, divides by zero on it (collbench broadcasts an empty list of
  // finished points at the start of every fresh launch).
  if (count >= 0 && bytes == 0 && comm != MPI_COMM_NULL) return MPI_SUCCESS;
  if (count >= 0 && comm_size >= 2 && root >= 0 && root < comm_size && !collbench::sim::mpich_choices())
    return ompi_bcast(buf, count, datatype, root, comm, comm_size, bytes);
  if (count < 0 || comm_size < 2 || bytes < kShortBcast || !collbench::sim::mpich_choices())
    return __real_MPI_Bcast(buf, count, datatype, root, comm);
  if (bytes < collbench::sim::wide_bcast_from() || collbench::sim::contiguous_bytes(datatype) == 0)
    return simgrid::smpi::bcast__scatter_LR_allgather(buf, count, datatype, root, comm);
  const int rc = scatter_ring_bcast(static_cast<char*>(buf), bytes, root, comm);
  if (rc == MPI_ERR_COUNT)
    std::fprintf(stderr, "simulated MPI_Bcast of %zu bytes over %d processes: a piece exceeds an int count\n", bytes,
                 comm_size);
  return rc;
}
