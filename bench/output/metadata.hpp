// The pieces of a launch's metadata (meta-L<l>.json; keys in contract/contract.json) that do
// not depend on the run's state: the configuration with its settings' points, the algorithms,
// Slurm ids, ping-pong times, the clock synchronization's statistics, the capabilities.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "collrepro/capabilities.hpp"
#include "config/config.hpp"
#include "families/plan.hpp"
#include "timing/clock.hpp"
#include "timing/clock_sync.hpp"

namespace collbench {

nlohmann::json config_json(const Config& c, const Plan& plan);  // with each setting's point ids
nlohmann::json algorithms_json(const Plan& plan);                // every algorithm of the plan, once
nlohmann::json slurm_json();                                     // null outside Slurm
// Half round-trip times between ranks 0 and 1 (median of 8 after 2 warm-ups), for alpha/beta
// fits; collective. Null with one rank.
nlohmann::json pingpong(const Clock& clock, int rank, int size);
// The time spent inside one call, per size (the ping-pong's), between ranks 0 and 1 (median of 8
// after 2 warm-ups): MPI_Send and MPI_Isend on rank 0 with the receive already posted, and
// MPI_Recv on rank 1 once the message has had time to arrive. What SimGrid's SMPI charges a
// process per message (smpi/os, smpi/ois, smpi/or; python/collrepro/sim/platforms/platform.py fits them).
// Ranks 0 and 1 only. Null with one rank, and where ranks share cores (`oversubscribed`, rank
// 0's assessment, which it passes to rank 1: the times would be the scheduler's, and
// busy-polling ranks made the measurement cost seconds a launch).
// `simulated`: the clock is SimGrid's (one round after the warm-up; a shorter wait). `pings`: rank
// 0's ping-pong (pingpong() above); sizes from the first whose one-way time exceeds 1 ms are left
// out.
nlohmann::json callcosts(const Clock& clock, int rank, int size, bool oversubscribed, bool simulated,
                         const nlohmann::json& pings);
// What a library's datatype engine adds to a message: the one-way ping-pong time between ranks 0
// and 1 (median of 16 samples of 20 round trips after 2 warm-ups; in simulation 1 sample) of 4 blocks of 1, 256 and 4096 bytes as
// one contiguous message and as one MPI_Type_create_struct message over strided blocks (what the
// torus algorithms send). python/collrepro/sim/platforms/platform.py fits the difference per message side
// for the simulation (bench/sim/typecost.cpp). Null as callcosts() is.
nlohmann::json typecosts(const Clock& clock, int rank, int size, bool oversubscribed, bool simulated);
// How the node's shared memory holds up when every core moves data at once: the one-way
// ping-pong time of 64 KiB, 256 KiB, 1 MiB and 4 MiB between ranks 0 and 1 alone, then between
// every pair of ranks (2k, 2k+1) at once (size / 2 pairs; median of 5 samples of 4 round trips
// after a warm-up, in simulation 1 sample): [{bytes, pairs, one_pair_s, all_pairs_s (the pairs'
// mean), all_pairs_max_s}]. While one pair is timed the others wait in MPI_Barrier (a busy-polling
// library keeps their cores busy). What python/collrepro/sim/platforms/platform.py turns into the simulated node's
// shared backbone, per size. Collective over world; null with fewer than 4 ranks or more than a
// node's (256; in simulation 64), across nodes (`nodes` > 1, outside simulation) and where ranks
// share cores (rank 0's `oversubscribed`).
nlohmann::json concurrent_pingpong(const Clock& clock, int rank, int size, int nodes, bool oversubscribed,
                                   bool simulated);
nlohmann::json capabilities_json(const collrepro::Capabilities& c);

// The clock synchronization and repetition statistics of a launch.
struct SyncStats {
  SyncMethod method = SyncMethod::Barrier;
  double clock_offset_error_s = 0;  // max |offset to rank 0| over the launch's checks
  double barrier_skew_s = -1;       // barrier methods: median exit skew
  nlohmann::json checks = nlohmann::json::array();
  SyncCost cost;                    // of the first synchronization
  std::string zero_residual_reason;
  double window_min = 0, window_max = 0;
  double max_point_residual_s = 0;  // max of the points' clock_residual_s
  std::size_t reps = 0, invalid = 0, resyncs = 0;
  double error_s() const { return uses_global_clock(method) ? clock_offset_error_s : barrier_skew_s; }
};

void record_check(SyncStats& s, const ResidualCheck& c, const std::string& when);
nlohmann::json sync_json(const SyncStats& s, const Timing& t);

}  // namespace collbench
