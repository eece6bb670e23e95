#include "timing/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace collbench {

namespace {
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
}

double quantile_sorted(std::span<const double> sorted, double prob) {
  if (sorted.empty()) return kNan;
  const double h = (static_cast<double>(sorted.size()) - 1) * prob;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return quantile_sorted(values, 0.5);
}

std::vector<double> tukey_filter(std::span<const double> values, double k) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const double q1 = quantile_sorted(sorted, 0.25), q3 = quantile_sorted(sorted, 0.75);
  const double lo = q1 - k * (q3 - q1), hi = q3 + k * (q3 - q1);
  std::vector<double> kept;
  kept.reserve(values.size());
  for (double v : values)
    if (v >= lo && v <= hi) kept.push_back(v);
  return kept;
}

Summary summarize(std::span<const double> times, const std::vector<bool>& valid, double k) {
  Summary s;
  s.n = times.size();
  s.k = k;
  std::vector<double> ok;
  ok.reserve(times.size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (i < valid.size() && !valid[i]) ++s.n_invalid;
    else ok.push_back(times[i]);
  }
  std::vector<double> kept = tukey_filter(ok, k);
  std::sort(ok.begin(), ok.end());
  s.p50 = quantile_sorted(ok, 0.50);
  s.p90 = quantile_sorted(ok, 0.90);
  s.p99 = quantile_sorted(ok, 0.99);
  std::sort(kept.begin(), kept.end());
  s.n_kept = kept.size();
  if (kept.empty()) {
    s.median = s.q1 = s.q3 = s.min = s.max = s.mean = kNan;
    return s;
  }
  s.median = quantile_sorted(kept, 0.5);
  s.q1 = quantile_sorted(kept, 0.25);
  s.q3 = quantile_sorted(kept, 0.75);
  s.min = kept.front();
  s.max = kept.back();
  s.mean = std::accumulate(kept.begin(), kept.end(), 0.0) / static_cast<double>(kept.size());
  return s;
}

}  // namespace collbench
