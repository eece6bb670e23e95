// Clocks, selectable at run time (timing.clock):
//   mpi-wtime  MPI_Wtime()
//   monotonic  clock_gettime(CLOCK_MONOTONIC)
//   tsc        the x86 time-stamp counter (rdtsc), only where the TSC is invariant
//              (constant_tsc and nonstop_tsc in /proc/cpuinfo); ticks are converted to
//              seconds with a frequency calibrated against CLOCK_MONOTONIC by the node leader
// now() returns seconds since an origin. For node-wide clocks (one hardware clock per node,
// same origin on every rank of the node: monotonic, tsc, and mpi-wtime when
// MPI_WTIME_IS_GLOBAL) ranks of a node can share one clock model; otherwise every rank has
// its own origin and clock synchronization estimates its offset.
#pragma once

#include "config/enums.hpp"

#include <mpi.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace collbench {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual const char* name() const = 0;
  virtual double now() const = 0;
  virtual bool node_wide() const = 0;
  virtual nlohmann::json details() const { return nlohmann::json::object(); }
};

// Collective over node_comm (the ranks of one node). Throws ConfigError when the clock is
// not available here (tsc without an invariant TSC on some rank: collective agreement).
std::unique_ptr<Clock> make_clock(ClockKind kind, MPI_Comm node_comm, MPI_Comm world);

// The smallest positive difference of consecutive readings over ~`samples` readings: the
// effective resolution (tick size or read overhead, whichever is larger).
double measure_resolution(const Clock& clock, int samples = 200000);

// True when /proc/cpuinfo lists constant_tsc and nonstop_tsc.
bool invariant_tsc();

}  // namespace collbench
