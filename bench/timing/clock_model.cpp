#include "timing/clock_model.hpp"

#include <algorithm>

#include "timing/stats.hpp"

namespace collbench {

ClockModel compose(const ClockModel& outer, const ClockModel& inner) {
  // outer(inner(l)) = (1 + dO) * ((1 + dI) * l + oI) + oO
  return {outer.offset + (1 + outer.drift) * inner.offset, inner.drift + outer.drift + inner.drift * outer.drift};
}

ClockModel fit_line(const std::vector<FitPoint>& points, double min_drift_span) {
  if (points.empty()) return {};
  const auto [lo, hi] = std::minmax_element(points.begin(), points.end(),
                                            [](const FitPoint& a, const FitPoint& b) { return a.x < b.x; });
  if (points.size() < 2 || hi->x - lo->x < min_drift_span) {
    std::vector<double> ys;
    for (const auto& p : points) ys.push_back(p.y);
    return {median(ys), 0};
  }
  const auto n = static_cast<double>(points.size());
  double mx = 0, my = 0;
  for (const auto& p : points) mx += p.x, my += p.y;
  mx /= n, my /= n;
  double sxx = 0, sxy = 0;
  for (const auto& p : points) sxx += (p.x - mx) * (p.x - mx), sxy += (p.x - mx) * (p.y - my);
  const double drift = sxx > 0 ? sxy / sxx : 0;
  return {my - drift * mx, drift};
}

int binomial_parent(int rank) { return rank <= 0 ? -1 : rank - (rank & -rank); }

int binomial_round(int rank) {
  int k = 0;
  while (rank > 0 && (rank & (1 << k)) == 0) ++k;
  return k;
}

int binomial_rounds(int size) {
  int k = 0;
  while ((1 << k) < size) ++k;
  return k;
}

std::vector<int> binomial_children(int rank, int size) {
  std::vector<int> out;
  for (int k = 0; (1 << k) < size; ++k) {
    if (rank % (1 << (k + 1)) != 0) break;  // from round lowbit(rank) on, rank is a child
    if (rank + (1 << k) < size) out.push_back(rank + (1 << k));
  }
  return out;
}

std::vector<ClockModel> compose_tree(const std::vector<ClockModel>& to_parent) {
  std::vector<ClockModel> to_root(to_parent.size());
  // A parent's number is smaller than its children's: ascending order composes top-down.
  for (std::size_t r = 1; r < to_parent.size(); ++r)
    to_root[r] = compose(to_root[static_cast<std::size_t>(binomial_parent(static_cast<int>(r)))], to_parent[r]);
  return to_root;
}

}  // namespace collbench
