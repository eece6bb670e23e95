// Clock synchronization for window-based process synchronization (ReproMPI / SKaMPI style).
//
// Every rank maps its local clock to rank 0's timeline with a linear model
//   global = local + offset + drift * local.
// Hierarchical: node leaders are synchronized with rank 0 by ping-pong exchanges (client
// sends, rank 0 answers with its global time; of `exchanges` ping-pongs (up to 3x more on a
// busy node, until one round trip is below 50 us) the one with the shortest round trip
// gives one fit point (x = mid-point, y = reference - mid-point)),
// and the model is a least-squares line through the fit points collected so far in this
// launch once they span at least `min_drift_span` seconds (before that: offset only,
// drift 0). Within a node, ranks share the leader's model when the clock is node-wide; else
// each estimates its offset to the leader's global time the same way (offset only: same
// hardware clock, drift taken from the leader).
// check() measures what is left: every rank's offset to rank 0 after synchronization.
#pragma once

#include <mpi.h>

#include <vector>

#include <nlohmann/json.hpp>

#include "collrepro/mpi.hpp"
#include "timing/clock.hpp"
#include "timing/topology.hpp"

namespace collbench {

struct ClockModel {
  double offset = 0;
  double drift = 0;
  double global(double local) const { return local + offset + drift * local; }
};

struct SyncParams {
  int fit_points = 8;
  int exchanges = 10;
  double min_drift_span = 0.5;  // seconds of fit history before the drift is estimated
  bool adaptive = true;         // up to 3x the exchanges while no round trip is below 50 us
};

struct OffsetCheck {
  double max_abs_offset_s = 0;     // max over ranks of |offset to rank 0| (rank 0)
  double max_round_trip_s = 0;     // largest best round trip: the resolution of the check (rank 0)
  std::vector<double> offsets_s;   // per rank (rank 0)
  std::vector<double> round_trips_s;  // per rank: the best round trip (|true offset - offset| <= half of it)
  // per rank: the precision of its synchronization, half the longest best round trip behind
  // its model (through its node leader's). The residual offset is within this bound plus
  // half the check's own round trip (for clocks without drift).
  std::vector<double> sync_bounds_s;
};

class ClockSync {
 public:
  // Collective over world (duplicates the communicators it uses).
  ClockSync(const Clock& clock, const Machine& machine, SyncParams params);

  void synchronize();                 // collective over world: refresh the models
  OffsetCheck check(int exchanges);   // collective over world
  double now() const { return model_.global(clock_.now()); }
  double to_global(double local) const { return model_.global(local); }
  const ClockModel& model() const { return model_; }
  double sync_bound() const { return bound_; }  // see OffsetCheck::sync_bounds_s
  int syncs() const { return syncs_; }

 private:
  struct Sample {
    double x = 0, y = 0, rtt = 0;
  };
  void sync_leaders();
  void sync_node();
  void fit_from_history(const std::vector<Sample>& latest);

  const Clock& clock_;
  SyncParams params_;
  int world_rank_ = 0, world_size_ = 1;
  collrepro::Comm world_, node_, leaders_;
  ClockModel model_;
  double bound_ = 0;
  std::vector<Sample> history_;
  int syncs_ = 0;
};

// Median over `samples` barriers of (latest - earliest exit time), in the global clock: how
// well MPI_Barrier synchronizes the processes (the sync error of the barrier methods).
// Collective; the value is meaningful on rank 0.
double measure_barrier_skew(MPI_Comm world, const ClockSync& sync, int samples);

}  // namespace collbench
