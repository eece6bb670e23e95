// The measurement of one point (bench/README.md, "Timing method"): warm-up, then N repetitions,
// each synchronized and timed locally; the max-over-ranks reduction happens after the N
// repetitions. The caller has set up and validated the point (outside the timed region).
//
//   barrier / double-barrier: MPI_Barrier (twice), t = local end - local start; the time of
//     repetition i is the max over ranks of t_i.
//   window: repetition i starts at the agreed global time start + i * window (chunks of
//     agree_every repetitions, each with a fresh start); the time is max over ranks of the
//     global end minus the agreed start; a repetition where any rank arrived after the
//     agreed start is invalid. Waiting ranks yield the CPU until 100 us before the start,
//     then spin. window "auto" = 2 x (max over ranks of the median warm-up
//     time) + 50 us, with at least 3 warm-up runs.
// Interrupts are agreed collectively every agree_every repetitions; an interrupted point is
// abandoned on all ranks (nothing of it is written).
#pragma once

#include <mpi.h>

#include <optional>
#include <vector>

#include "config.hpp"
#include "family.hpp"
#include "interrupt.hpp"
#include "timing/clock.hpp"
#include "timing/clock_sync.hpp"

namespace collbench {

struct Measurement {
  std::vector<double> times;  // rank 0: seconds per repetition (max over ranks)
  std::vector<bool> valid;    // rank 0: false = some rank started late (window)
  double window_s = 0;        // window sync: the window used
  int interrupted = 0;        // agreed signal number when the point was abandoned
};

class Measurer {
 public:
  // sync may be null unless timing.sync is window.
  Measurer(MPI_Comm world, const Timing& timing, const Clock& clock, ClockSync* sync, InterruptWatch& watch);

  // Collective: the signal any rank has seen (the largest number), or 0.
  int agree_interrupt();
  // Collective over the world.
  Measurement measure(PreparedPoint& point);

 private:
  double warm_up(PreparedPoint& point, int runs);  // returns max over ranks of the median run time
  Measurement barrier_reps(PreparedPoint& point);
  Measurement window_reps(PreparedPoint& point, double window);
  void synchronize_once();

  MPI_Comm world_;
  Timing timing_;
  const Clock& clock_;
  ClockSync* sync_;
  InterruptWatch& watch_;
  int rank_ = 0;
  double agree_time_ = 1e-3;  // recent max duration of a window agreement (for the start lead)
};

}  // namespace collbench
