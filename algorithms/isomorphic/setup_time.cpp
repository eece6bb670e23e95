// Set-up time measurement for seed 004 Table 2: MPI_Dist_graph_create_adjacent and
// MPI_Dist_graph_create against Iso_neighborhood_create (IsoComm::attach) and
// Iso_neighbor_alltoall_init (torus all-to-all schedule + struct datatypes).
//
// The paper reports the median of 400 measurements per function (Moore neighbourhoods,
// 30 x 16 processes); how processes were synchronized is not stated (seed 004 §4). Here each
// measurement starts after an MPI_Barrier, the local time of the call alone is kept (freeing
// the result is outside the timed region), and after all repetitions the maximum over ranks is
// taken per repetition. The Cartesian communicator is created once beforehand: the paper's
// Iso_neighborhood_create receives a ready `cartcomm`.
#include <stdexcept>

#include "collrepro/isomorphic.hpp"
#include "neighbor_collective.hpp"
#include "zero_copy_executor.hpp"

namespace collrepro::iso {
namespace {

template <class F>
double time_once(MPI_Comm comm, F&& call) {
  check(MPI_Barrier(comm), "MPI_Barrier");
  const double t0 = MPI_Wtime();
  auto result = call();
  const double t = MPI_Wtime() - t0;
  (void)result;  // destroyed here, after the clock stopped
  return t;
}

}  // namespace

SetupTimes measure_setup(MPI_Comm parent, const Shape& shape, const Capabilities& caps, int reps) {
  if (auto why = shape.invalid()) throw std::invalid_argument("measure_setup: " + *why);
  if (reps < 1) throw std::invalid_argument("measure_setup: reps must be >= 1");
  const Neighborhood& n = shape.neighborhood;
  const IsoComm cart = IsoComm::create(parent, n, caps, shape.dims);
  const Args layout = Args::contiguous(Collective::NeighborAlltoall, Shape::regular(n, shape.block, shape.dims));
  Buffer send(layout.send_extent()), recv(layout.recv_extent());
  Args args = layout;
  args.send = send.data();
  args.recv = recv.data();

  const auto r = static_cast<std::size_t>(reps);
  std::vector<double> local(4 * r);
  for (std::size_t k = 0; k < r; ++k) {
    local[k] = time_once(cart.comm(), [&] { return dist_graph_adjacent(cart); });
    local[r + k] = time_once(cart.comm(), [&] { return dist_graph_general(cart); });
    local[2 * r + k] = time_once(cart.comm(), [&] { return IsoComm::attach(cart.comm(), n, caps); });
    local[3 * r + k] = time_once(cart.comm(), [&] { return ZeroCopyPlan(cart, torus_alltoall_schedule(n), args); });
  }
  std::vector<double> worst(local.size());
  check(MPI_Allreduce(local.data(), worst.data(), static_cast<int>(worst.size()), MPI_DOUBLE, MPI_MAX, cart.comm()),
        "MPI_Allreduce");
  auto slice = [&](std::size_t i) {
    return std::vector<double>(worst.begin() + static_cast<std::ptrdiff_t>(i * r),
                               worst.begin() + static_cast<std::ptrdiff_t>((i + 1) * r));
  };
  return {slice(0), slice(1), slice(2), slice(3)};
}

}  // namespace collrepro::iso
