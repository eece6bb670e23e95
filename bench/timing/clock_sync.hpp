// Clock synchronization: every rank maps its local clock to one global timeline (rank 0's
// clock) with a linear model (clock_model.hpp), for the methods that start repetitions at
// agreed global times (window, round-time).
//
// Levels (topology.hpp): the node leaders synchronize among themselves (offset and drift,
// fitted over the history of the launch); within a node, ranks of a node-wide clock
// (clock.hpp) take their leader's model verbatim, with no ping-pong at all, and ranks of a
// per-rank clock fit their offset to the leader (same hardware clock: the leader's drift).
// Each level runs one of two algorithms (timing.clock_sync, sync_level.hpp):
//   hierarchical  O(log p) rounds along a binomial tree (clock_sync_hierarchical.cpp)
//   linear        O(p) rounds, rank 0 serving each rank in turn (clock_sync_linear.cpp)
//
// check() measures what the synchronization left: an independent ping-pong estimate of each
// rank's offset to rank 0's global time, straight to rank 0 (not along the tree). Ranks that
// use their leader's model verbatim (node-wide clock) have a residual of 0 by construction and
// are not measured, unless the scope is All (the start-of-launch check does that once, to
// verify the node-wide assumption).
#pragma once

#include <mpi.h>

#include <vector>

#include <nlohmann/json.hpp>

#include "collrepro/mpi.hpp"
#include "config/enums.hpp"
#include "timing/clock.hpp"
#include "timing/clock_model.hpp"
#include "timing/sync_level.hpp"
#include "timing/topology.hpp"

namespace collbench {

enum class CheckScope { Models, All };

// The result of a residual check (rank 0; other ranks get an empty one).
struct ResidualCheck {
  double when_s = 0;               // rank 0's global time of the check
  double max_abs_offset_s = 0;     // max over measured ranks of |offset to rank 0|
  double max_error_s = 0;          // max over measured ranks of half the best round trip
  int measured = 0;                // ranks measured (rank 0 is the reference and is not)
  std::vector<double> offsets_s;   // per rank (0 for unmeasured ranks)
  std::vector<double> errors_s;    // per rank: |true offset - offset| <= this (symmetric network)
  std::vector<double> bounds_s;    // per rank: the precision the synchronization claimed
  std::vector<int> was_measured;   // per rank
  // true when some rank's offset is beyond `bound` for certain (|offset| - error > bound)
  bool exceeds(double bound) const;
};

// What a synchronization cost (collective cost()).
struct SyncCost {
  double seconds = 0;  // max over ranks of the last synchronize()
  long messages = 0;   // sum over ranks of the messages the last synchronize() sent
  int rounds = 0;      // fit rounds on the critical path (leaders + node level)
};

class ClockSync {
 public:
  // Collective over world (duplicates the communicators it uses).
  ClockSync(const Clock& clock, const Machine& machine, ClockSyncKind kind, SyncParams params);

  void synchronize();  // collective over world: refresh the models
  ResidualCheck check(int exchanges, CheckScope scope = CheckScope::Models);  // collective
  SyncCost cost();     // collective over world: the last synchronize()

  double now() const { return model_.global(clock_.now()); }
  double to_global(double local) const { return model_.global(local); }
  const ClockModel& model() const { return model_; }
  double sync_bound() const { return bound_; }
  int syncs() const { return syncs_; }
  ClockSyncKind kind() const { return kind_; }
  // Why unmeasured ranks have a residual of 0 (metadata), or "" when every rank is measured.
  std::string zero_residual_reason() const;
  // rank 0: max over ranks of |offset change| / time between `later` and the first check
  // after the latest synchronize(); NaN when there is none or less than 1 s between them.
  double drift_residual(const ResidualCheck& later) const;
  // rank 0: max over ranks of (the two checks' errors) / time between them: a drift residual
  // below it is within the checks' own error; NaN when drift_residual is.
  double drift_resolution(const ResidualCheck& later) const;

 private:
  LevelResult run_level(const SyncLevel& level, std::vector<FitPoint>& history, MessageCount& count) const;
  bool has_own_model() const { return !clock_.node_wide() || node_.rank() == 0; }

  const Clock& clock_;
  ClockSyncKind kind_;
  SyncParams params_;
  int world_rank_ = 0, world_size_ = 1;
  collrepro::Comm world_, node_, leaders_;
  ClockModel model_;
  double bound_ = 0;
  std::vector<FitPoint> leader_history_;
  std::vector<FitPoint> node_history_;
  int syncs_ = 0;
  double last_seconds_ = 0;
  MessageCount last_count_;
  ResidualCheck baseline_;  // rank 0: the first check after the latest synchronize()
  bool baseline_due_ = false;
};

// Median over `samples` barriers of (latest - earliest exit time), in the global clock: how
// well MPI_Barrier synchronizes the processes (the sync error of the barrier methods).
// Collective; the value is meaningful on rank 0.
double measure_barrier_skew(MPI_Comm world, const ClockSync& sync, int samples);

}  // namespace collbench
