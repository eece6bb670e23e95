#include "timing/measure.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "collrepro/mpi.hpp"
#include "timing/compute_loop.hpp"
#include "timing/phase_timer.hpp"
#include "timing/stats.hpp"

namespace collbench {

namespace {

using collrepro::check;

// A rank that leaves the wait more than this after the agreed start was held past it (by the
// scheduler, a signal, a page fault): its repetition would time that delay. Spinning ranks
// leave the wait well within it.
constexpr double kStartSlack = 5e-6;

// Waits until the global clock reaches the agreed `start`: yields the CPU while more than
// 100 us remain (so that waiting ranks do not starve the others on a shared or oversubscribed
// node; sched_yield returns at once when nothing else is runnable), then spins. True when this
// rank starts late: it arrived after the start, or it was held past the start while it
// waited. The reading that ends the wait decides, so no clock is read between the start and
// the timed call.
bool wait_for_start(const ClockSync& sync, double start) {
  double left = start - sync.now();
  if (left < 0) return true;
  for (; left > 0; left = start - sync.now())
    if (left > 100e-6) sched_yield();
  return -left > kStartSlack;
}

}  // namespace

// Rank 0: time of repetition i = max over the point's ranks of the end minus the agreed start;
// valid when none of them arrived after the start. A rank outside the point ends nothing and
// is never late: it sends -infinity and 0 to the reductions.
void Measurer::collect_global_times(const std::vector<double>& starts, std::vector<double> ends,
                                    std::vector<int> late, Measurement& m) {
  const std::size_t n = starts.size();
  if (index_ < 0) {
    std::fill(ends.begin(), ends.end(), -std::numeric_limits<double>::infinity());
    std::fill(late.begin(), late.end(), 0);
  }
  std::vector<double> max_end(rank_ == 0 ? n : 0);
  std::vector<int> any_late(rank_ == 0 ? n : 0);
  check(MPI_Reduce(ends.data(), max_end.data(), static_cast<int>(n), MPI_DOUBLE, MPI_MAX, 0, world_), "MPI_Reduce");
  check(MPI_Reduce(late.data(), any_late.data(), static_cast<int>(n), MPI_INT, MPI_MAX, 0, world_), "MPI_Reduce");
  if (rank_ != 0) return;
  m.times.resize(n);
  m.valid.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    m.times[i] = std::max(0.0, max_end[i] - starts[i]);
    m.valid[i] = any_late[i] == 0;
  }
}

// The point's ranks are the world ranks whose point says in_point(), in world order. One
// Allgather of a flag per rank, summed here: SimGrid's MPI_Exscan (and MPI_Scan) is linear, each
// rank waiting on every lower rank's message through MPI_Waitany, which cost a 256-rank
// simulation 9 minutes per point (a flat crossbar, 32 KiB) and never finished at 1024.
void Measurer::find_point_ranks(const PreparedPoint& point) {
  const int mine = point.in_point() ? 1 : 0;
  std::vector<int> flags(static_cast<std::size_t>(size_));
  check(MPI_Allgather(&mine, 1, MPI_INT, flags.data(), 1, MPI_INT, world_), "MPI_Allgather (the point's ranks)");
  const auto before = std::accumulate(flags.begin(), flags.begin() + rank_, 0);
  count_ = std::accumulate(flags.begin(), flags.end(), 0);
  index_ = mine ? before : -1;
}

double Measurer::own_delay(std::size_t rep) const {
  return index_ < 0 ? 0 : arrival_delay(arrival_, index_, count_, rep);
}

// When the first rank of the point arrives at repetition `rep` (time_s and the phases count
// from it).
double Measurer::first_arrival(double start, std::size_t rep) const {
  return arrival_.skewed() ? start + arrival_span(arrival_, count_, rep).first : start;
}

// Rank 0: collect_global_times timed repetition i from the agreed start; with a skewed arrival
// the first rank arrives at start + the smallest delay (time_s is from then) and the last at
// start + the largest (time_from_last_s). Every delay is recomputed here (arrival.hpp).
void Measurer::time_from_arrivals(Measurement& m) const {
  if (rank_ != 0 || !arrival_.skewed() || m.interrupted) return;
  m.times_from_last.resize(m.times.size());
  for (std::size_t i = 0; i < m.times.size(); ++i) {
    const ArrivalSpan span = arrival_span(arrival_, count_, i);
    m.times_from_last[i] = std::max(0.0, m.times[i] - span.last);
    m.times[i] = std::max(0.0, m.times[i] - span.first);
  }
}

Measurer::Measurer(MPI_Comm world, const Timing& timing, const Clock& clock, ClockSync* sync, InterruptWatch& watch)
    : world_(world), timing_(timing), clock_(clock), sync_(sync), watch_(watch) {
  check(MPI_Comm_rank(world_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(world_, &size_), "MPI_Comm_size");
}

int Measurer::agree_interrupt() {
  int mine = watch_.poll(), any = 0;
  check(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, world_), "MPI_Allreduce (interrupt agreement)");
  return any;
}

void Measurer::synchronize_once() {
  check(MPI_Barrier(world_), "MPI_Barrier");
  if (timing_.sync == SyncMethod::DoubleBarrier) check(MPI_Barrier(world_), "MPI_Barrier");
}

double Measurer::warm_up(PreparedPoint& point, int runs) {
  std::vector<double> local;
  for (int i = 0; i < runs; ++i) {
    synchronize_once();
    const double t0 = clock_.now();
    point.run();
    local.push_back(clock_.now() - t0);
  }
  double mine = local.empty() ? 0 : median(local), worst = 0;
  check(MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, world_), "MPI_Allreduce (warm-up time)");
  return worst;
}

Measurement Measurer::measure(PreparedPoint& point, const Arrival& arrival) {
  arrival_ = arrival;
  find_point_ranks(point);
  if (!uses_global_clock(timing_.sync)) {
    warm_up(point, timing_.warmup);
    return barrier_reps(point);
  }
  return on_global_clock(point);
}

Measurement Measurer::on_global_clock(PreparedPoint& point) {
  const bool resynced = refresh_clocks();
  Measurement m;
  if (timing_.sync == SyncMethod::RoundTime) {
    warm_up(point, timing_.warmup);
    m = round_time_reps(point);
  } else {
    const bool automatic = !timing_.window.has_value();
    const double typical = warm_up(point, automatic ? std::max(timing_.warmup, 3) : timing_.warmup);
    m = window_reps(point, automatic ? 2 * typical + 50e-6 + arrival_.max_delay_s : *timing_.window);
  }
  time_from_arrivals(m);
  if (m.interrupted) return m;
  m.resynced = resynced ? 1 : 0;
  check_clocks(m);
  return m;
}

bool Measurer::refresh_clocks() {
  const bool resync = timing_.resync == Resync::Point || resync_due_;
  resync_due_ = false;
  if (!resync) return false;
  sync_->synchronize();
  sync_->check(timing_.sync_exchanges);  // the baseline of the drift residual
  return true;
}

void Measurer::check_clocks(Measurement& m) {
  const ResidualCheck c = sync_->check(timing_.sync_exchanges);
  int exceeded = 0;
  if (rank_ == 0) {
    m.residual_s = c.max_abs_offset_s;
    m.residual_err_s = c.max_error_s;
    m.drift_residual = sync_->drift_residual(c);
    exceeded = c.exceeds(timing_.residual_bound) ? 1 : 0;
  }
  check(MPI_Bcast(&exceeded, 1, MPI_INT, 0, world_), "MPI_Bcast (resync decision)");
  if (timing_.resync == Resync::Bound && exceeded) resync_due_ = true;
}

Measurement Measurer::barrier_reps(PreparedPoint& point) {
  Measurement m;
  const auto n = static_cast<std::size_t>(timing_.reps);
  std::vector<double> local(n, 0.0);
  const auto phases = phase_timer(timing_.phases, world_, point, [this] { return clock_.now(); });
  for (std::size_t i = 0; i < n; ++i) {
    if (i % static_cast<std::size_t>(timing_.agree_every) == 0)
      if ((m.interrupted = agree_interrupt())) return m;
    synchronize_once();
    const double t0 = clock_.now();
    point.run();
    const double t1 = clock_.now();
    local[i] = index_ < 0 ? 0 : t1 - t0;  // a rank outside the point times nothing
    if (phases) phases->end_repetition(t0, t1);
  }
  if (phases) phases->collect(m.phase_names, m.phase_ends);
  if (rank_ == 0) m.times.assign(n, 0.0);
  check(MPI_Reduce(local.data(), rank_ == 0 ? m.times.data() : nullptr, static_cast<int>(n), MPI_DOUBLE, MPI_MAX, 0, world_),
        "MPI_Reduce (max over ranks)");
  if (rank_ == 0) m.valid.assign(n, true);
  return m;
}

void Measurer::overlap(PreparedPoint& point, Measurement& m) {
  const double target = warm_up(point, std::max(timing_.warmup, 3));
  const auto n = static_cast<std::size_t>(timing_.reps);
  std::vector<double> pure(n, 0.0), exposed(n, 0.0), compute(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    if (i % static_cast<std::size_t>(timing_.agree_every) == 0)
      if ((m.interrupted = agree_interrupt())) return;
    synchronize_once();  // pure: the same two halves as below, nothing between them
    double t0 = clock_.now();
    point.start();
    point.wait();
    const double t_pure = clock_.now() - t0;
    synchronize_once();
    t0 = clock_.now();
    point.start();
    const double t1 = clock_.now();
    if (index_ >= 0) compute_for(clock_, target);
    const double t2 = clock_.now();
    point.wait();
    const double t3 = clock_.now();
    if (index_ < 0) continue;  // a rank outside the point times nothing
    pure[i] = t_pure;
    compute[i] = t2 - t1;
    exposed[i] = std::max(0.0, (t3 - t0) - compute[i]);
  }
  for (auto* v : {&pure, &exposed, &compute})
    check(MPI_Reduce(rank_ == 0 ? MPI_IN_PLACE : v->data(), rank_ == 0 ? v->data() : nullptr,
                     static_cast<int>(n), MPI_DOUBLE, MPI_MAX, 0, world_),
          "MPI_Reduce (overlap, max over ranks)");
  if (rank_ != 0 || n == 0) return;
  m.overlap_pure_s = median(pure);
  m.overlap_compute_s = median(compute);
  const double hidden = m.overlap_pure_s > 0 ? 1 - median(exposed) / m.overlap_pure_s : 0;
  m.overlap_pct = 100 * std::clamp(hidden, 0.0, 1.0);
}

Measurement Measurer::window_reps(PreparedPoint& point, double window) {
  Measurement m;
  m.window_s = window;
  const auto n = static_cast<std::size_t>(timing_.reps);
  std::vector<double> starts(n, 0.0), ends(n, 0.0);
  std::vector<int> late(n, 0);
  const auto phases = phase_timer(timing_.phases, world_, point, [this] { return sync_->now(); });
  for (std::size_t i = 0; i < n;) {
    // Agreement: stop, or a common start for the next chunk (rank 0's proposal wins the MAX).
    const double lead = 2 * window + 3 * agree_time_ + 50e-6;
    const double t_agree = clock_.now();
    double in[3] = {static_cast<double>(watch_.poll()), rank_ == 0 ? sync_->now() + lead : -1e300, agree_time_};
    double out[3] = {0, 0, 0};
    check(MPI_Allreduce(in, out, 3, MPI_DOUBLE, MPI_MAX, world_), "MPI_Allreduce (window agreement)");
    agree_time_ = std::max(out[2] * 0.5, clock_.now() - t_agree);
    if (out[0] > 0) {
      m.interrupted = static_cast<int>(out[0]);
      return m;
    }
    const std::size_t chunk = std::min(n - i, static_cast<std::size_t>(timing_.agree_every));
    for (std::size_t j = 0; j < chunk; ++j, ++i) {
      const double start = out[1] + static_cast<double>(j) * window;
      starts[i] = start;
      late[i] = wait_for_start(*sync_, start + own_delay(i)) ? 1 : 0;
      point.run();
      ends[i] = sync_->now();
      if (phases) phases->end_repetition(first_arrival(start, i), ends[i]);
    }
  }
  collect_global_times(starts, ends, late, m);
  if (phases) phases->collect(m.phase_names, m.phase_ends);
  return m;
}


Measurement Measurer::round_time_reps(PreparedPoint& point) {
  Measurement m;
  const auto most = static_cast<std::size_t>(timing_.reps);
  std::vector<double> starts, ends;
  std::vector<int> late;
  const double budget_end = clock_.now() + timing_.budget;
  double lead_factor = 2;  // the lead in agreement times: doubles after a late start, decays after on-time ones
  const auto phases = phase_timer(timing_.phases, world_, point, [this] { return sync_->now(); });
  while (starts.size() < most) {
    // Agreement: interrupt, budget spent, the last repetition's lateness, and rank 0's
    // proposed start (the MAX wins).
    const double t_agree = clock_.now();
    const double lead = lead_factor * agree_time_ + 20e-6;
    double in[5] = {static_cast<double>(watch_.poll()), clock_.now() > budget_end ? 1.0 : 0.0,
                    late.empty() ? 0.0 : static_cast<double>(late.back()), rank_ == 0 ? sync_->now() + lead : -1e300,
                    agree_time_};
    double out[5] = {0, 0, 0, 0, 0};
    check(MPI_Allreduce(in, out, 5, MPI_DOUBLE, MPI_MAX, world_), "MPI_Allreduce (round-time agreement)");
    agree_time_ = std::max(out[4] * 0.5, clock_.now() - t_agree);
    lead_factor = out[2] > 0 ? std::min(2 * lead_factor, 64.0) : std::max(2.0, 0.9 * lead_factor);
    if (out[0] > 0) {
      m.interrupted = static_cast<int>(out[0]);
      return m;
    }
    if (out[1] > 0 && !starts.empty()) break;  // the budget is spent (at least one repetition)
    const double start = out[3];
    starts.push_back(start);
    late.push_back(wait_for_start(*sync_, start + own_delay(starts.size() - 1)) ? 1 : 0);
    point.run();
    ends.push_back(sync_->now());
    if (phases) phases->end_repetition(first_arrival(start, starts.size() - 1), ends.back());
  }
  collect_global_times(starts, ends, late, m);
  if (phases) phases->collect(m.phase_names, m.phase_ends);
  return m;
}

}  // namespace collbench
