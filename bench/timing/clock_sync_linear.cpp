// Linear clock synchronization (SKaMPI / JK style): rank 0 of the level is the reference and
// serves every other rank in turn.
//
// Source: the scheme of SKaMPI and of Jones and Koenig, as ReproMPI's JK method; here with the
// best-of-N ping-pong fit points and the least-squares drift of clock_model.hpp.
// Cost for p ranks: p - 1 sequential sessions of fit_points x exchanges ping-pongs at rank 0,
// so time ~ (p - 1) * fit_points * exchanges * round trip; messages 2 * (p - 1) * fit_points *
// exchanges + (p - 1) dones + a broadcast of rank 0's model (p - 1 messages).
// Precision: each rank's model rests on its own fit against rank 0: the level's bound is the
// reference's plus half the rank's longest best round trip.
// Plan: none (the schedule is the loop); the shared pieces are in sync_level.cpp.
#include "timing/sync_level.hpp"

namespace collbench {

LevelResult sync_level_linear(const SyncLevel& level, std::vector<FitPoint>& history, MessageCount& count) {
  int rank = 0, size = 1;
  collrepro::check(MPI_Comm_rank(level.comm, &rank), "MPI_Comm_rank");
  collrepro::check(MPI_Comm_size(level.comm, &size), "MPI_Comm_size");
  PartnerFit fit;
  if (rank == 0)
    for (int c = 1; c < size; ++c) serve_partner(level, c, count);
  else
    fit = fit_to_partner(level, 0, history, count);
  double root[3] = {level.root_model.offset, level.root_model.drift, level.root_bound};
  collrepro::check(MPI_Bcast(root, 3, MPI_DOUBLE, 0, level.comm), "MPI_Bcast (reference model)");
  if (rank == 0) {
    count.sent += size - 1;  // the broadcast moves p - 1 messages whatever its algorithm
    return {level.root_model, level.root_bound};
  }
  return {compose(ClockModel{root[0], root[1]}, fit.to_partner), root[2] + fit.half_rtt};
}

}  // namespace collbench
