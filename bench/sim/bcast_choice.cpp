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
#include <smpi/smpi.h>

#include <cstddef>

namespace simgrid::smpi {
// SimGrid 3.32's scatter + ring-allgather broadcast (exported by libsimgrid; SimGrid installs
// no header for its collective algorithms). The signature is MPI_Bcast's.
int bcast__scatter_LR_allgather(void* buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
}  // namespace simgrid::smpi

extern "C" {
int __real_MPI_Bcast(void* buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int __wrap_MPI_Bcast(void* buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
}

namespace {

// MPICH's bound between short (binomial tree) and longer broadcasts.
constexpr std::size_t kShortBcast = 12288;

bool is_short(int count, MPI_Datatype datatype, MPI_Comm comm) {
  int type_size = 0, comm_size = 0;
  MPI_Type_size(datatype, &type_size);
  MPI_Comm_size(comm, &comm_size);
  return comm_size < 2 || static_cast<std::size_t>(count) * static_cast<std::size_t>(type_size) < kShortBcast;
}

}  // namespace

int __wrap_MPI_Bcast(void* buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  if (count < 0 || is_short(count, datatype, comm)) return __real_MPI_Bcast(buf, count, datatype, root, comm);
  return simgrid::smpi::bcast__scatter_LR_allgather(buf, count, datatype, root, comm);
}
