// Arrival patterns: how late each rank starts a repetition after the agreed global start, so
// that algorithms are compared when processes arrive skewed, as they do in applications
// (Salimibeni, Cosenza and Hunold, CLUSTER 2024: benchmarks synchronized only by a barrier can
// pick the wrong algorithm). Pure (no MPI), unit tested in tests/driver/arrival_test.cpp.
//
// The ranks are those of the point, numbered 0..P-1 in world order (the measurement passes
// them; a world rank outside the point, idle beyond groups.sizes, starts on time):
//   none      every rank starts at the agreed start (delay 0)
//   one-late  the point's last rank starts max_delay late, every other rank on time
//   linear    rank r of P starts max_delay * r / (P - 1) late (P = 1: on time)
//   random    each rank, each repetition, uniform in [0, max_delay], from a generator that
//             depends only on (seed, repetition, rank): rank 0 recomputes every rank's delay
//
// The measurement (measure.cpp) times each repetition from the first arrival (the agreed start
// plus the smallest delay: time_s) and from the last (plus the largest: time_from_last_s).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "config/arrival.hpp"

namespace collbench {

// Seconds the point's rank `rank` of `size` starts repetition `rep` after the agreed start; in
// [0, max_delay_s].
double arrival_delay(const Arrival& a, int rank, int size, std::uint64_t rep);

// The smallest and largest delay over ranks 0..size-1 of repetition `rep`: the first and the
// last arrival, relative to the agreed start.
struct ArrivalSpan {
  double first = 0, last = 0;
};
ArrivalSpan arrival_span(const Arrival& a, int size, std::uint64_t rep);

// The median of other[i] over the repetitions that summarize() (stats.hpp) keeps from `times`:
// valid and inside the Tukey fences of the valid times. The summary's median_from_last: the
// times from the last arrival of the repetitions whose time from the first arrival was kept.
// NaN when none is kept.
double median_over_kept(std::span<const double> times, const std::vector<bool>& valid, double k,
                        std::span<const double> other);

}  // namespace collbench
