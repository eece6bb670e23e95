#include "timing/clock_sync.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "timing/stats.hpp"

namespace collbench {

using collrepro::Comm;

namespace {
// Offsets are measured to about a microsecond; over less than a second their change says
// more about that error than about drift.
constexpr double kMinDriftSpan = 1.0;
}  // namespace

ClockSync::ClockSync(const Clock& clock, const Machine& machine, ClockSyncKind kind, SyncParams params)
    : clock_(clock), kind_(kind), params_(params), world_rank_(machine.world_rank), world_size_(machine.world_size) {
  world_ = Comm::dup(MPI_COMM_WORLD);
  node_ = Comm::dup(machine.node.get());
  if (machine.leaders) leaders_ = Comm::dup(machine.leaders.get());
}

LevelResult ClockSync::run_level(const SyncLevel& level, std::vector<FitPoint>& history, MessageCount& count) const {
  return kind_ == ClockSyncKind::Hierarchical ? sync_level_hierarchical(level, history, count)
                                              : sync_level_linear(level, history, count);
}

void ClockSync::synchronize() {
  const double t0 = clock_.now();
  MessageCount count;
  LevelResult leader{};  // rank 0 of the world is leader 0: the identity, bound 0
  if (leaders_) leader = run_level({leaders_.get(), &clock_, params_, true, {}, 0}, leader_history_, count);
  if (clock_.node_wide()) {
    // One hardware clock per node: the leader's model is every node rank's model.
    double m[3] = {leader.model.offset, leader.model.drift, leader.bound};
    collrepro::check(MPI_Bcast(m, 3, MPI_DOUBLE, 0, node_.get()), "MPI_Bcast (clock model)");
    if (node_.rank() == 0) count.sent += node_.size() - 1;
    model_ = {m[0], m[1]};
    bound_ = m[2];
  } else {
    const auto r = run_level({node_.get(), &clock_, params_, false, leader.model, leader.bound}, node_history_, count);
    model_ = r.model;
    bound_ = r.bound;
  }
  ++syncs_;
  last_count_ = count;
  last_seconds_ = clock_.now() - t0;
  baseline_due_ = true;
}

SyncCost ClockSync::cost() {
  double secs = last_seconds_;
  long msgs = last_count_.sent;
  SyncCost out;
  collrepro::check(MPI_Allreduce(&secs, &out.seconds, 1, MPI_DOUBLE, MPI_MAX, world_.get()), "MPI_Allreduce (sync time)");
  collrepro::check(MPI_Allreduce(&msgs, &out.messages, 1, MPI_LONG, MPI_SUM, world_.get()), "MPI_Allreduce (sync messages)");
  int leaders = leaders_ ? leaders_.size() : 0, nodes_max = node_.size();
  int l_max = 0, n_max = 0;
  collrepro::check(MPI_Allreduce(&leaders, &l_max, 1, MPI_INT, MPI_MAX, world_.get()), "MPI_Allreduce");
  collrepro::check(MPI_Allreduce(&nodes_max, &n_max, 1, MPI_INT, MPI_MAX, world_.get()), "MPI_Allreduce");
  auto rounds = [this](int p) { return kind_ == ClockSyncKind::Hierarchical ? binomial_rounds(p) : std::max(p - 1, 0); };
  out.rounds = rounds(l_max) + (clock_.node_wide() ? 0 : rounds(n_max));
  return out;
}

bool ResidualCheck::exceeds(double bound) const {
  for (std::size_t r = 0; r < offsets_s.size(); ++r)
    if (was_measured[r] && std::fabs(offsets_s[r]) - errors_s[r] > bound) return true;
  return false;
}

std::string ClockSync::zero_residual_reason() const {
  if (!clock_.node_wide()) return "";
  return std::string("the clock (") + clock_.name() +
         ") is node-wide: ranks other than node leaders use their leader's model on the same hardware clock, so their "
         "residual to the leader is 0 by construction and they are not measured";
}

ResidualCheck ClockSync::check(int exchanges, CheckScope scope) {
  // Every rank but 0 opens a session with rank 0; unmeasured ranks end it at once.
  MessageCount ignored;
  const bool measure = scope == CheckScope::All || has_own_model();
  double mine[5] = {0, 0, bound_, 0, 0};  // offset, error, bound, measured, when
  if (world_rank_ == 0) {
    for (int r = 1; r < world_size_; ++r) serve_pings(world_.get(), r, [this] { return now(); }, ignored);
    mine[4] = now();
  } else {
    if (measure) {
      const auto b = best_ping(world_.get(), 0, exchanges, params_.adaptive, [this] { return now(); }, ignored);
      mine[0] = b.y;
      mine[1] = b.rtt / 2;
      mine[3] = 1;
    }
    end_pings(world_.get(), 0, ignored);
  }
  std::vector<double> all(world_rank_ == 0 ? 5 * static_cast<std::size_t>(world_size_) : 0);
  collrepro::check(MPI_Gather(mine, 5, MPI_DOUBLE, all.data(), 5, MPI_DOUBLE, 0, world_.get()), "MPI_Gather (offsets)");
  ResidualCheck out;
  if (world_rank_ != 0) return out;
  out.when_s = mine[4];
  for (int r = 0; r < world_size_; ++r) {
    const double* row = &all[5 * static_cast<std::size_t>(r)];
    out.offsets_s.push_back(row[0]);
    out.errors_s.push_back(row[1]);
    out.bounds_s.push_back(row[2]);
    out.was_measured.push_back(row[3] > 0 ? 1 : 0);
    if (row[3] > 0) {
      ++out.measured;
      out.max_abs_offset_s = std::max(out.max_abs_offset_s, std::fabs(row[0]));
      out.max_error_s = std::max(out.max_error_s, row[1]);
    }
  }
  if (baseline_due_) {
    baseline_ = out;
    baseline_due_ = false;
  }
  return out;
}

// Max over the ranks measured by both checks of per_rank(baseline, later, r) / dt, dt the time
// between the baseline (the first check after the latest synchronize()) and `later`; NaN when
// there is no baseline or less than kMinDriftSpan between them.
namespace {
template <class PerRank>
double worst_rate_since_baseline(const ResidualCheck& baseline, const ResidualCheck& later, PerRank per_rank) {
  const double dt = later.when_s - baseline.when_s;
  if (baseline.offsets_s.size() != later.offsets_s.size() || !(dt >= kMinDriftSpan))
    return std::numeric_limits<double>::quiet_NaN();
  double worst = 0;
  for (std::size_t r = 0; r < later.offsets_s.size(); ++r)
    if (later.was_measured[r] && baseline.was_measured[r]) worst = std::max(worst, per_rank(r) / dt);
  return worst;
}
}  // namespace

double ClockSync::drift_residual(const ResidualCheck& later) const {
  return worst_rate_since_baseline(baseline_, later, [&](std::size_t r) {
    return std::fabs(later.offsets_s[r] - baseline_.offsets_s[r]);
  });
}

double ClockSync::drift_resolution(const ResidualCheck& later) const {
  return worst_rate_since_baseline(baseline_, later, [&](std::size_t r) {
    return later.errors_s[r] + baseline_.errors_s[r];
  });
}

double measure_barrier_skew(MPI_Comm world, const ClockSync& sync, int samples) {
  std::vector<double> exits(static_cast<std::size_t>(samples)), hi(exits.size()), lo(exits.size());
  for (int i = 0; i < samples; ++i) {
    collrepro::check(MPI_Barrier(world), "MPI_Barrier");
    exits[static_cast<std::size_t>(i)] = sync.now();
  }
  collrepro::check(MPI_Reduce(exits.data(), hi.data(), samples, MPI_DOUBLE, MPI_MAX, 0, world), "MPI_Reduce");
  collrepro::check(MPI_Reduce(exits.data(), lo.data(), samples, MPI_DOUBLE, MPI_MIN, 0, world), "MPI_Reduce");
  std::vector<double> skew(exits.size());
  for (std::size_t i = 0; i < skew.size(); ++i) skew[i] = hi[i] - lo[i];
  return median(skew);
}

}  // namespace collbench
