#include "timing/clock_sync.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats.hpp"

namespace collbench {

namespace {

using collrepro::check;
using collrepro::Comm;

constexpr int kPingTag = 9171;

// The ping-pong protocol: the client sends 1 (a ping) or 0 (done) to the reference, which
// answers every ping with its reference time.
constexpr int kPing = 1, kDone = 0;

// Reference side: answers the pings of `client` until it says done.
template <class Now>
void serve(MPI_Comm comm, int client, Now reference) {
  for (;;) {
    int what = kDone;
    check(MPI_Recv(&what, 1, MPI_INT, client, kPingTag, comm, MPI_STATUS_IGNORE), "MPI_Recv (ping)");
    if (what == kDone) return;
    const double t = reference();
    check(MPI_Send(&t, 1, MPI_DOUBLE, client, kPingTag, comm), "MPI_Send (pong)");
  }
}

struct Best {
  double x = 0, y = 0, rtt = std::numeric_limits<double>::infinity();
};

// Client side: the best (shortest round trip) ping-pong with `ref`: x = mid-point of the
// client's clock, y = reference - mid-point. At least `exchanges` ping-pongs; on a busy
// node up to 3x more, until one round trip is below kGoodRoundTrip.
constexpr double kGoodRoundTrip = 50e-6;
template <class Now>
Best best_sample(MPI_Comm comm, int ref, int exchanges, bool adaptive, Now local) {
  Best best;
  const int most = adaptive ? 3 * exchanges : exchanges;
  for (int e = 0; e < most && (e < exchanges || best.rtt > kGoodRoundTrip); ++e) {
    double reply = 0;
    const double t1 = local();
    check(MPI_Send(&kPing, 1, MPI_INT, ref, kPingTag, comm), "MPI_Send (ping)");
    check(MPI_Recv(&reply, 1, MPI_DOUBLE, ref, kPingTag, comm, MPI_STATUS_IGNORE), "MPI_Recv (pong)");
    const double t2 = local();
    if (t2 - t1 < best.rtt) best = {(t1 + t2) / 2, reply - (t1 + t2) / 2, t2 - t1};
  }
  return best;
}

// Ends a client's session with the reference.
void done(MPI_Comm comm, int ref) { check(MPI_Send(&kDone, 1, MPI_INT, ref, kPingTag, comm), "MPI_Send (done)"); }

}  // namespace

ClockSync::ClockSync(const Clock& clock, const Machine& machine, SyncParams params)
    : clock_(clock), params_(params), world_rank_(machine.world_rank), world_size_(machine.world_size) {
  world_ = Comm::dup(MPI_COMM_WORLD);
  node_ = Comm::dup(machine.node.get());
  if (machine.leaders) leaders_ = Comm::dup(machine.leaders.get());
}

void ClockSync::fit_from_history(const std::vector<Sample>& latest) {
  history_.insert(history_.end(), latest.begin(), latest.end());
  if (history_.size() > 512) history_.erase(history_.begin(), history_.end() - 512);
  double lo = history_.front().x, hi = lo;
  for (const auto& s : history_) lo = std::min(lo, s.x), hi = std::max(hi, s.x);
  if (history_.size() >= 2 && hi - lo >= params_.min_drift_span) {
    double mx = 0, my = 0;
    for (const auto& s : history_) mx += s.x, my += s.y;
    mx /= static_cast<double>(history_.size());
    my /= static_cast<double>(history_.size());
    double sxx = 0, sxy = 0;
    for (const auto& s : history_) sxx += (s.x - mx) * (s.x - mx), sxy += (s.x - mx) * (s.y - my);
    model_.drift = sxx > 0 ? sxy / sxx : 0;
    model_.offset = my - model_.drift * mx;
  } else {
    std::vector<double> ys;
    for (const auto& s : latest) ys.push_back(s.y);
    model_.drift = 0;
    model_.offset = median(ys);
  }
}

void ClockSync::sync_leaders() {
  if (!leaders_) return;
  const int rank = leaders_.rank(), size = leaders_.size();
  if (rank == 0) {
    model_ = {};  // rank 0 defines the global timeline
    bound_ = 0;
    for (int c = 1; c < size; ++c) serve(leaders_.get(), c, [this] { return clock_.now(); });
    return;
  }
  std::vector<Sample> latest;
  for (int f = 0; f < params_.fit_points; ++f) {
    const auto b = best_sample(leaders_.get(), 0, params_.exchanges, params_.adaptive, [this] { return clock_.now(); });
    latest.push_back({b.x, b.y, b.rtt});
  }
  done(leaders_.get(), 0);
  fit_from_history(latest);
  bound_ = 0;
  for (const auto& s : latest) bound_ = std::max(bound_, s.rtt / 2);
}

void ClockSync::sync_node() {
  double leader_model[3] = {model_.offset, model_.drift, bound_};
  collrepro::check(MPI_Bcast(leader_model, 3, MPI_DOUBLE, 0, node_.get()), "MPI_Bcast (clock model)");
  bound_ = leader_model[2];
  if (clock_.node_wide()) {
    model_ = {leader_model[0], leader_model[1]};
    return;
  }
  const int rank = node_.rank(), size = node_.size();
  if (rank == 0) {
    for (int c = 1; c < size; ++c) serve(node_.get(), c, [this] { return now(); });
    return;
  }
  // Same hardware clock as the leader: offset only, the drift is the leader's.
  const double drift = leader_model[1];
  std::vector<double> offsets;
  double worst_rtt = 0;
  for (int f = 0; f < params_.fit_points; ++f) {
    const auto b = best_sample(node_.get(), 0, params_.exchanges, params_.adaptive, [this] { return clock_.now(); });
    offsets.push_back(b.y - drift * b.x);  // global = x + off + drift x = x + y  =>  off = y - drift x
    worst_rtt = std::max(worst_rtt, b.rtt);
  }
  done(node_.get(), 0);
  model_ = {median(offsets), drift};
  bound_ += worst_rtt / 2;  // the leader's error plus this rank's own
}

void ClockSync::synchronize() {
  sync_leaders();
  sync_node();
  ++syncs_;
}

OffsetCheck ClockSync::check(int exchanges) {
  OffsetCheck out;
  double mine[3] = {0, 0, bound_};  // offset, best round trip, synchronization bound
  if (world_rank_ == 0) {
    for (int r = 1; r < world_size_; ++r) serve(world_.get(), r, [this] { return now(); });
  } else {
    const auto b = best_sample(world_.get(), 0, exchanges, params_.adaptive, [this] { return now(); });
    done(world_.get(), 0);
    mine[0] = b.y;
    mine[1] = b.rtt;
  }
  std::vector<double> all(world_rank_ == 0 ? 3 * static_cast<std::size_t>(world_size_) : 0);
  collrepro::check(MPI_Gather(mine, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, 0, world_.get()), "MPI_Gather (offsets)");
  if (world_rank_ == 0) {
    for (int r = 0; r < world_size_; ++r) {
      const double* row = &all[3 * static_cast<std::size_t>(r)];
      const double off = row[0], rtt = row[1];
      out.offsets_s.push_back(off);
      out.round_trips_s.push_back(rtt);
      out.sync_bounds_s.push_back(row[2]);
      out.max_abs_offset_s = std::max(out.max_abs_offset_s, std::fabs(off));
      out.max_round_trip_s = std::max(out.max_round_trip_s, rtt);
    }
  }
  return out;
}

double measure_barrier_skew(MPI_Comm world, const ClockSync& sync, int samples) {
  std::vector<double> exits(static_cast<std::size_t>(samples)), hi(exits.size()), lo(exits.size());
  for (int i = 0; i < samples; ++i) {
    collrepro::check(MPI_Barrier(world), "MPI_Barrier");
    exits[static_cast<std::size_t>(i)] = sync.now();
  }
  check(MPI_Reduce(exits.data(), hi.data(), samples, MPI_DOUBLE, MPI_MAX, 0, world), "MPI_Reduce");
  check(MPI_Reduce(exits.data(), lo.data(), samples, MPI_DOUBLE, MPI_MIN, 0, world), "MPI_Reduce");
  std::vector<double> skew(exits.size());
  for (std::size_t i = 0; i < skew.size(); ++i) skew[i] = hi[i] - lo[i];
  return median(skew);
}

}  // namespace collbench
