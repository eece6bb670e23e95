// Statistics of one measurement point (bench/README.md, "Timing method"; seed 004 §4).
//
// Quantiles use linear interpolation between order statistics (Hyndman-Fan type 7, the
// numpy/pandas default), so the summary CSV matches what analysis/ recomputes from the raw
// rows. The Tukey filter keeps x in [Q1 - k*IQR, Q3 + k*IQR] with Q1, Q3 of the valid
// values; median, quartiles, min, max and mean are then taken over the kept values. The tail
// percentiles p50, p90 and p99 are taken over all valid values, before the filter, because the
// tail is exactly what the filter may remove.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace collbench {

// Type-7 quantile of sorted values, 0 <= prob <= 1; NaN when empty.
double quantile_sorted(std::span<const double> sorted, double prob);
double median(std::vector<double> values);

// The values of `values` inside [Q1 - k*IQR, Q3 + k*IQR], in their original order.
std::vector<double> tukey_filter(std::span<const double> values, double k);

struct Summary {
  std::size_t n = 0;          // repetitions
  std::size_t n_invalid = 0;  // repetitions marked invalid (window late start)
  std::size_t n_kept = 0;     // valid repetitions inside the Tukey fences
  double k = 3;
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0, mean = 0;  // of the kept values; NaN when none
  double p50 = 0, p90 = 0, p99 = 0;  // of the valid values (before the filter); NaN when none
};

// `valid[i]` false marks times[i] as invalid (excluded before the filter).
Summary summarize(std::span<const double> times, const std::vector<bool>& valid, double k);

}  // namespace collbench
