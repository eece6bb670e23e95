// One level of clock synchronization: the ranks of a communicator learn to map their clocks
// to the timeline of the communicator's rank 0, whose own model to the global timeline
// (root_model, with its precision root_bound) is known at rank 0 only. ClockSync
// (clock_sync.hpp) runs a level among node leaders and, for clocks that are not node-wide,
// one inside each node. Two algorithms, selectable at run time (timing.clock_sync):
//   linear        clock_sync_linear.cpp        rank 0 serves every rank in turn: p - 1 rounds
//   hierarchical  clock_sync_hierarchical.cpp  a binomial tree: ceil(log2 p) rounds
// Both fit each rank against its partner's raw clock (clock_model.hpp: fit_line) and compose
// the fitted model with the partner's model to the global timeline (compose).
#pragma once

#include <mpi.h>

#include <vector>

#include "timing/clock.hpp"
#include "timing/clock_model.hpp"
#include "timing/pingpong.hpp"

namespace collbench {

struct SyncParams {
  int fit_points = 8;
  int exchanges = 10;
  double min_drift_span = 0.5;  // seconds of fit history before the drift is estimated
  bool adaptive = true;         // up to 3x the exchanges while no round trip is below 50 us
};

struct SyncLevel {
  MPI_Comm comm = MPI_COMM_NULL;
  const Clock* clock = nullptr;
  SyncParams params;
  // true: fit offset and drift over the history of fit points against the same partner
  // (across synchronizations of a launch); false: offset only from this round's points (the
  // ranks share one hardware clock, so the drift is the partner's)
  bool fit_drift = true;
  ClockModel root_model;  // rank 0 only
  double root_bound = 0;  // rank 0 only
};

struct LevelResult {
  ClockModel model;  // this rank's clock -> the global timeline
  double bound = 0;  // half the longest best round trip on the path to the global reference
};

// `history` holds this rank's fit points against its partner (kept by the caller between
// synchronizations; the partner never changes within a launch).
LevelResult sync_level_linear(const SyncLevel& level, std::vector<FitPoint>& history, MessageCount& count);
LevelResult sync_level_hierarchical(const SyncLevel& level, std::vector<FitPoint>& history, MessageCount& count);

// Shared by both: `fit_points` best ping-pongs against `partner`'s raw clock, then the fitted
// model to the partner's clock and the worst half round trip among the points.
struct PartnerFit {
  ClockModel to_partner;
  double half_rtt = 0;
};
PartnerFit fit_to_partner(const SyncLevel& level, int partner, std::vector<FitPoint>& history, MessageCount& count);
void serve_partner(const SyncLevel& level, int client, MessageCount& count);

}  // namespace collbench
