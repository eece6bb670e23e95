// The measurement of one point (bench/README.md, "Timing method"): warm-up, then N repetitions,
// each synchronized and timed locally; the max-over-ranks reduction happens after the N
// repetitions. The caller has set up and validated the point (outside the timed region).
//
//   barrier / double-barrier: MPI_Barrier (twice), t = local end - local start; the time of
//     repetition i is the max over ranks of t_i.
//   window: repetition i starts at the agreed global time start + i * window (chunks of
//     agree_every repetitions, each with a fresh start); the time is max over ranks of the
//     global end minus the agreed start; a repetition where any rank started late is invalid
//     (it arrived after the agreed start, or something held it past the start by more than
//     5 us while it waited). Waiting ranks yield the CPU until 100 us before the start, then
//     spin. window "auto" = 2 x (max over ranks of the median warm-up
//     time) + 50 us, with at least 3 warm-up runs.
//   round-time: every repetition gets its own agreed start (one MPI_Allreduce: rank 0
//     proposes now + a lead of twice the recent agreement time + 20 us; the same reduction
//     carries interrupts and the time budget). Times and lateness as for window. The point
//     stops after `reps` repetitions or when timing.budget seconds are spent, whichever
//     comes first, so a slow point cannot run away and a late rank costs one repetition,
//     not every later one.
// Global-clock methods (window, round-time) also check the clock: after every
// (re)synchronization and at the end of every point an independent ping-pong check measures
// each rank's residual offset to rank 0 (ClockSync::check). With timing.resync = bound the next
// point resynchronizes when a rank's offset is certainly beyond timing.residual_bound; with
// point, every point does; with launch, none after the first.
// Arrival patterns (the sweep key arrival, arrival.hpp; global-clock methods only): each rank
// of the point waits for the agreed start plus its own delay, and is late against that target.
// The delays are over the point's ranks (rank i of the n world ranks that take part, in world
// order): a rank outside the point (idle beyond groups.sizes) starts on time, and its end and
// lateness are left out of the reductions, so that neither its wait nor its scheduling enters
// the point's time. Rank 0 recomputes every delay: time_s is from the first arrival (start +
// the smallest delay; for none the agreed start), times_from_last from the last (start + the
// largest); the auto window adds max_delay.
// Interrupts are agreed collectively every agree_every repetitions (every repetition for
// round-time); an interrupted point is abandoned on all ranks (nothing of it is written).
//
// Overlap (a nonblocking point, timing.overlap; in the manner of the OSU benchmarks), after the
// repetitions above: `reps` pairs of repetitions, each synchronized by a barrier and timed on
// each rank's clock, whatever timing.sync says (the result is a ratio of local times):
//   pure      start + wait, nothing between;
//   overlap   start, arithmetic (compute_loop.hpp) for the median pure time of the warm-up (max
//             over ranks), then wait; exposed = its time minus the arithmetic's measured time.
// Each repetition's pure and exposed times are the max over the point's ranks; the point's
// overlap = 100 x (1 - median exposed / median pure), clamped to [0, 100]: 100 when the whole
// call progressed during the loop, 0 when none of it did (a schedule that moves only inside
// wait, or a library without asynchronous progress).
#pragma once

#include <mpi.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "timing/arrival.hpp"
#include "config/config.hpp"
#include "timing/prepared_point.hpp"
#include "base/interrupt.hpp"
#include "timing/clock.hpp"
#include "timing/clock_sync.hpp"

namespace collbench {

struct Measurement {
  std::vector<double> times;  // rank 0: seconds per repetition (max over ranks)
  // rank 0, skewed arrival (global-clock methods): seconds from the last arrival; times are
  // then from the first arrival. Empty when every rank starts at the agreed start (= times).
  std::vector<double> times_from_last;
  std::vector<bool> valid;    // rank 0: false = some rank started late (window)
  double window_s = 0;        // window sync: the window used
  int interrupted = 0;        // agreed signal number when the point was abandoned
  // Global-clock methods (rank 0), NaN otherwise: the end-of-point residual check.
  double residual_s = std::numeric_limits<double>::quiet_NaN();      // max |offset to rank 0|
  double residual_err_s = std::numeric_limits<double>::quiet_NaN();  // its measurement error
  double drift_residual = std::numeric_limits<double>::quiet_NaN();  // s/s since the last sync
  int resynced = -1;          // 1: the clocks were synchronized before this point; -1: n/a
  // timing.phases (rank 0): the call's phases and, per repetition, the end of each phase by
  // its last rank, in seconds from the repetition's start (repetitions x phases; phase_timer.hpp).
  std::vector<std::string> phase_names;
  std::vector<double> phase_ends;
  // timing.overlap, a nonblocking point (rank 0; NaN otherwise): the overlap measurement.
  double overlap_pct = std::numeric_limits<double>::quiet_NaN();
  double overlap_pure_s = std::numeric_limits<double>::quiet_NaN();     // median pure start + wait
  double overlap_compute_s = std::numeric_limits<double>::quiet_NaN();  // median of the loop's time
};

class Measurer {
 public:
  // sync may be null unless timing.sync is window.
  Measurer(MPI_Comm world, const Timing& timing, const Clock& clock, ClockSync* sync, InterruptWatch& watch);

  // Collective: the signal any rank has seen (the largest number), or 0.
  int agree_interrupt();
  // Collective over the world. `arrival`: how late each rank starts (global-clock methods only).
  Measurement measure(PreparedPoint& point, const Arrival& arrival = {});
  // Collective over the world, after measure() of the same point: the overlap measurement
  // (above) into m's overlap fields, or m.interrupted.
  void overlap(PreparedPoint& point, Measurement& m);

 private:
  double warm_up(PreparedPoint& point, int runs);  // returns max over ranks of the median run time
  Measurement barrier_reps(PreparedPoint& point);
  Measurement window_reps(PreparedPoint& point, double window);
  Measurement round_time_reps(PreparedPoint& point);
  Measurement on_global_clock(PreparedPoint& point);
  void collect_global_times(const std::vector<double>& starts, std::vector<double> ends, std::vector<int> late,
                            Measurement& m);
  bool refresh_clocks();                  // collective: resynchronize if the policy says so
  void check_clocks(Measurement& m);      // collective: the end-of-point residual
  void synchronize_once();
  void find_point_ranks(const PreparedPoint& point);  // collective: index_ and count_
  double own_delay(std::size_t rep) const;           // this rank's arrival delay in repetition rep
  double first_arrival(double start, std::size_t rep) const;
  void time_from_arrivals(Measurement& m) const;     // rank 0: times from the first and last arrival

  MPI_Comm world_;
  Timing timing_;
  const Clock& clock_;
  ClockSync* sync_;
  InterruptWatch& watch_;
  int rank_ = 0;
  int size_ = 1;
  Arrival arrival_;           // of the point being measured
  int index_ = 0;             // this rank among the point's ranks (world order); -1 outside the point
  int count_ = 1;             // how many ranks take part in the point
  double agree_time_ = 1e-3;  // recent max duration of a window agreement (for the start lead)
  bool resync_due_ = false;   // set by a residual beyond the bound (resync: bound)
};

}  // namespace collbench
