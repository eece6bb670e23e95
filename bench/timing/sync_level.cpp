#include "timing/sync_level.hpp"

#include <algorithm>

namespace collbench {

namespace {
constexpr std::size_t kMaxHistory = 512;
}

PartnerFit fit_to_partner(const SyncLevel& level, int partner, std::vector<FitPoint>& history, MessageCount& count) {
  const Clock& clock = *level.clock;
  std::vector<FitPoint> latest;
  PartnerFit out;
  for (int f = 0; f < level.params.fit_points; ++f) {
    latest.push_back(best_ping(level.comm, partner, level.params.exchanges, level.params.adaptive,
                               [&clock] { return clock.now(); }, count));
    out.half_rtt = std::max(out.half_rtt, latest.back().rtt / 2);
  }
  end_pings(level.comm, partner, count);
  if (!level.fit_drift) {
    out.to_partner = fit_line(latest, std::numeric_limits<double>::infinity());  // offset only
    return out;
  }
  history.insert(history.end(), latest.begin(), latest.end());
  if (history.size() > kMaxHistory) history.erase(history.begin(), history.end() - kMaxHistory);
  out.to_partner = fit_line(history, level.params.min_drift_span);
  return out;
}

void serve_partner(const SyncLevel& level, int client, MessageCount& count) {
  const Clock& clock = *level.clock;
  serve_pings(level.comm, client, [&clock] { return clock.now(); }, count);
}

}  // namespace collbench
