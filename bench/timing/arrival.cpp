#include "timing/arrival.hpp"

#include <algorithm>

#include "collrepro/buffers.hpp"
#include "timing/stats.hpp"

namespace collbench {

namespace {

using collrepro::splitmix64;

// Uniform in [0, 1] from (seed, rep, rank) alone.
double unit_uniform(std::uint64_t seed, std::uint64_t rep, int rank) {
  const std::uint64_t h =
      splitmix64(splitmix64(splitmix64(seed) ^ rep) ^ static_cast<std::uint64_t>(static_cast<std::uint32_t>(rank)));
  return static_cast<double>(h >> 11) / static_cast<double>((std::uint64_t{1} << 53) - 1);
}

}  // namespace

double arrival_delay(const Arrival& a, int rank, int size, std::uint64_t rep) {
  switch (a.pattern) {
    case ArrivalPattern::None: return 0;
    case ArrivalPattern::OneLate: return rank == size - 1 ? a.max_delay_s : 0;
    case ArrivalPattern::Linear:
      return size > 1 ? a.max_delay_s * static_cast<double>(rank) / static_cast<double>(size - 1) : 0;
    case ArrivalPattern::Random: return std::min(a.max_delay_s, a.max_delay_s * unit_uniform(a.seed, rep, rank));
  }
  return 0;
}

ArrivalSpan arrival_span(const Arrival& a, int size, std::uint64_t rep) {
  if (size <= 0) return {};
  switch (a.pattern) {
    case ArrivalPattern::None: return {};
    case ArrivalPattern::OneLate: return {size > 1 ? 0 : a.max_delay_s, a.max_delay_s};
    case ArrivalPattern::Linear: return {0, size > 1 ? a.max_delay_s : 0};
    case ArrivalPattern::Random: break;
  }
  ArrivalSpan s{arrival_delay(a, 0, size, rep), arrival_delay(a, 0, size, rep)};
  for (int r = 1; r < size; ++r) {
    const double d = arrival_delay(a, r, size, rep);
    s.first = std::min(s.first, d);
    s.last = std::max(s.last, d);
  }
  return s;
}

double median_over_kept(std::span<const double> times, const std::vector<bool>& valid, double k,
                        std::span<const double> other) {
  const auto is_valid = [&](std::size_t i) { return i >= valid.size() || valid[i]; };
  std::vector<double> ok;
  for (std::size_t i = 0; i < times.size(); ++i)
    if (is_valid(i)) ok.push_back(times[i]);
  std::sort(ok.begin(), ok.end());
  const double q1 = quantile_sorted(ok, 0.25), q3 = quantile_sorted(ok, 0.75);
  const double lo = q1 - k * (q3 - q1), hi = q3 + k * (q3 - q1);
  std::vector<double> kept;
  for (std::size_t i = 0; i < times.size() && i < other.size(); ++i)
    if (is_valid(i) && times[i] >= lo && times[i] <= hi) kept.push_back(other[i]);
  return median(std::move(kept));
}

}  // namespace collbench
