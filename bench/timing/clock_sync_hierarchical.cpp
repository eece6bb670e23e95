// Hierarchical clock synchronization in O(log p) rounds (HCA class).
//
// Source: the HCA family of Hunold and Carpen-Amarie (HCA at EuroMPI 2015; its later variants,
// such as HCA3 in ReproMPI's mpi-time-sync library, fit pairwise models along a binomial tree
// and compose them). Written here from that idea, with the fit points and line fit of
// clock_model.hpp.
// Method: every rank r > 0 fits a model of its clock to its binomial-tree parent's raw clock
// (parent r - lowbit(r), in round log2 lowbit(r); clock_model.hpp: binomial_parent). No rank is
// in two pairs of one round, and a pair needs no one else's result, so the fits of a round
// run side by side. Then the models flow down the tree: a rank receives its parent's model
// to the global timeline, composes it with its own (compose: exact for linear models), and
// passes the result to its children, largest subtree first.
// Cost for p ranks: ceil(log2 p) fit rounds, each fit_points x exchanges ping-pongs long, plus
// ceil(log2 p) model hops; messages about the same as the linear scheme (every rank but the
// root is fitted once) plus p - 1 model messages. Time ~ log2 p instead of p - 1 sessions.
// Precision: errors add up along the path to the root, so the bound of a rank is the sum of
// half the longest best round trips on its path (at most ceil(log2 p) terms).
// Plan: the tree is pure (binomial_* in clock_model.cpp, exhaustively tested); this file is
// its executor.
#include <vector>

#include "timing/sync_level.hpp"

namespace collbench {

namespace {

constexpr int kModelTag = 9172;

// Fit phase, round by round: serve the children fitted before this rank's own round, then
// fit against the parent.
PartnerFit fit_phase(const SyncLevel& level, int rank, int size, std::vector<FitPoint>& history, MessageCount& count) {
  for (int child : binomial_children(rank, size)) serve_partner(level, child, count);
  if (rank == 0) return {};
  return fit_to_partner(level, binomial_parent(rank), history, count);
}

}  // namespace

LevelResult sync_level_hierarchical(const SyncLevel& level, std::vector<FitPoint>& history, MessageCount& count) {
  int rank = 0, size = 1;
  collrepro::check(MPI_Comm_rank(level.comm, &rank), "MPI_Comm_rank");
  collrepro::check(MPI_Comm_size(level.comm, &size), "MPI_Comm_size");
  const PartnerFit fit = fit_phase(level, rank, size, history, count);

  LevelResult mine{level.root_model, level.root_bound};
  if (rank > 0) {
    double parent[3] = {0, 0, 0};  // the parent's model to the global timeline, its bound
    collrepro::check(MPI_Recv(parent, 3, MPI_DOUBLE, binomial_parent(rank), kModelTag, level.comm, MPI_STATUS_IGNORE),
                     "MPI_Recv (parent's clock model)");
    mine = {compose(ClockModel{parent[0], parent[1]}, fit.to_partner), parent[2] + fit.half_rtt};
  }
  const auto children = binomial_children(rank, size);
  const double out[3] = {mine.model.offset, mine.model.drift, mine.bound};
  for (auto c = children.rbegin(); c != children.rend(); ++c) {  // largest subtree first
    collrepro::check(MPI_Send(out, 3, MPI_DOUBLE, *c, kModelTag, level.comm), "MPI_Send (clock model)");
    ++count.sent;
  }
  return mine;
}

}  // namespace collbench
