// The isomorphic sparse collective family (seed 004: Träff, Carpen-Amarie, Hunold, Rougier,
// "Message-Combining Algorithms for Isomorphic, Sparse Collective Communication", 2016).
//
// All processes of a periodic d-dimensional torus (an MPI Cartesian communicator) declare the
// same ordered neighbourhood C^0..C^{s-1} (neighborhood.hpp). Collectives, in the registry's
// enum:
//   NeighborAlltoall   recv block i at R = send block i of R ⊖ C^i, every block m bytes;
//   NeighborAllgather  recv block i at R = the (single) send block of R ⊖ C^i;
//   NeighborAlltoallw  as all-to-all with per-block sizes m_i (the same on every process)
//                      and arbitrary displacements.
// The send buffer is never modified.
//
// How a driver uses the family, without knowing any algorithm by name:
//
//   Shape shape = Shape::regular(Neighborhood::parse("moore:d=3,r=1"), 64);   // iso_shape.hpp
//   for (const IsoAlgorithm* a : Registry::global().family<IsoAlgorithm>(Collective::NeighborAlltoall)) {
//     if (Support ok = a->supports(shape, caps); !ok) { report(ok.reason); continue; }
//     IsoComm comm = IsoComm::create(MPI_COMM_WORLD, shape.neighborhood, caps, shape.dims);  // collective
//     Args args = Args::contiguous(a->info().collective, shape);   // layout; then set send / recv
//     allocate args.send_extent() and args.recv_extent() bytes, fill the send buffer;
//     auto runner = a->prepare(comm, args);   // collective: schedules, datatypes, graph comms
//     runner->run();                          // the timed part (a persistent start), repeatable
//   }
//
// prepare() is collective over the IsoComm and does all the persistent set-up (the paper's
// Iso_neighbor_*_init); run() is Iso_start (blocking). The Runner keeps pointers into `args`'
// buffers: they must stay at the same address; their contents may change between runs.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "collrepro/capabilities.hpp"
#include "collrepro/iso_shape.hpp"
#include "collrepro/mpi.hpp"
#include "collrepro/neighborhood.hpp"
#include "collrepro/registry.hpp"

namespace collrepro::iso {

// What the MPI library offers (collrepro/capabilities.hpp); supports() answers "no" for what
// it lacks (the MPI_Neighbor_* baselines need dist_graph).
using Capabilities = collrepro::Capabilities;

// One process's buffers, in bytes. Blocks are contiguous byte runs at the given displacements.
//   all-to-all(w): send_counts/send_displs and recv_counts/recv_displs have s entries, and
//                  send_counts[i] == recv_counts[i] (pairwise equal sizes, as the paper asks);
//   allgather:     send_counts/send_displs have 1 entry, recv_counts s entries all equal to it.
struct Args {
  const std::byte* send = nullptr;
  std::byte* recv = nullptr;
  std::vector<std::size_t> send_counts, send_displs;
  std::vector<std::size_t> recv_counts, recv_displs;

  // Blocks back to back in neighbour order, with the sizes of `shape`; buffers unset.
  static Args contiguous(Collective c, const Shape& shape);
  std::size_t send_extent() const;  // bytes the send buffer must have: max(displ + count)
  std::size_t recv_extent() const;
  // True when every block has `m` bytes at i * m (what MPI_Neighbor_alltoall/allgather take).
  bool regular(std::size_t& m) const;
  // Throws std::invalid_argument unless the args fit collective c and s blocks.
  void validate(Collective c, std::size_t s) const;
};

// An isomorphic communicator (the paper's isocomm): a private duplicate of a periodic
// Cartesian communicator with the neighbourhood attached. Ranks are translated only through
// the Cartesian communicator (MPI_Cart_coords / MPI_Cart_rank), never through the parent's
// numbering, so reordered Cartesian communicators are fine.
class IsoComm {
 public:
  // Collective over `parent`: a periodic Cartesian communicator with `dims` (empty or 0 entries:
  // MPI_Dims_create chooses; reorder allowed, as in the paper), then attach(). The dims must
  // multiply to the size of `parent`. `caps`: the library's (probe_capabilities), kept for
  // the executors. Throws MpiError / std::invalid_argument.
  static IsoComm create(MPI_Comm parent, const Neighborhood& n, const Capabilities& caps, std::vector<int> dims = {});
  // Collective over `cart`, which must be a Cartesian communicator of n.dims() periodic
  // dimensions: the paper's Iso_neighborhood_create (Listing 1).
  static IsoComm attach(MPI_Comm cart, const Neighborhood& n, const Capabilities& caps);

  MPI_Comm comm() const { return comm_.get(); }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const Neighborhood& neighborhood() const { return neighborhood_; }
  const std::vector<int>& dims() const { return dims_; }
  const std::vector<int>& coords() const { return coords_; }
  // Rank of R ⊕ offset (offsets of any size wrap around the torus).
  int rank_at(const Offset& offset) const;
  // targets()[i] = rank of R ⊕ C^i, sources()[i] = rank of R ⊖ C^i.
  const std::vector<int>& targets() const { return targets_; }
  const std::vector<int>& sources() const { return sources_; }
  const Capabilities& capabilities() const { return caps_; }

 private:
  IsoComm() = default;
  Comm comm_;
  Capabilities caps_;
  Neighborhood neighborhood_;
  int rank_ = 0, size_ = 0;
  std::vector<int> dims_, coords_, targets_, sources_;
};

class IsoAlgorithm : public Algorithm {
 public:
  explicit IsoAlgorithm(AlgorithmInfo info) : info_(std::move(info)) {}
  const AlgorithmInfo& info() const final { return info_; }

  // Whether the algorithm runs this shape in this environment; if not, why. Checks the shape
  // (Shape::invalid, the block rule of the collective), then supports_shape().
  Support supports(const Shape& shape, const Capabilities& caps) const;
  // The cost-model prediction in the paper's model (alpha-beta, seconds = alpha_terms alpha +
  // beta_bytes beta). Precondition: supports(shape, ...) for some capabilities.
  virtual Cost cost(const Shape& shape) const = 0;
  // A lower bound valid in every network model of the family (one port per process), for tori
  // large enough that distinct offsets are distinct processes: one start-up when any offset is
  // nonzero, and every byte of a nonzero-offset block received once (allgather: once per
  // distinct nonzero offset).
  virtual Cost lower_bound(const Shape& shape) const;
  // Collective over `comm`: builds schedules, datatypes and communicators for these buffers.
  // `args` must outlive the runner; run() may be called many times.
  virtual std::unique_ptr<Runner> prepare(const IsoComm& comm, const Args& args) const = 0;
  // The call in `form`, one that supports_call() accepts: blocking is prepare(); a nonblocking
  // or persistent form is a StartedRunner, and a persistent one does its init here (the family
  // times this call as the point's init_s). The default offers blocking only.
  virtual std::unique_ptr<Runner> prepare_call(const IsoComm& comm, const Args& args, CallForm form) const;

 protected:
  virtual Support supports_shape(const Shape&, const Capabilities&) const { return Support::yes(); }

 private:
  AlgorithmInfo info_;
};

// Set-up times for seed 004 Table 2, in seconds. Each vector has one entry per repetition,
// the maximum over the ranks of `parent` of the local time (reduced after all repetitions).
struct SetupTimes {
  std::vector<double> dist_graph_create_adjacent;  // MPI_Dist_graph_create_adjacent
  std::vector<double> dist_graph_create;           // MPI_Dist_graph_create, each rank its out-edges
  std::vector<double> iso_neighborhood_create;     // IsoComm::attach on a ready Cartesian comm
  std::vector<double> iso_alltoall_init;           // torus all-to-all init: schedule + datatypes
};
// Collective over `parent`. Builds the Cartesian communicator of shape.dims once, then times
// each set-up `reps` times after a barrier; the all-to-all init uses blocks of shape.block bytes.
// The communicators are freed outside the timed region. Needs MPI_Dist_graph_create*.
SetupTimes measure_setup(MPI_Comm parent, const Shape& shape, const Capabilities& caps, int reps);
double median(std::vector<double> values);

}  // namespace collrepro::iso
