// What every intercept shares: whether to look at a call at all, and how a failure ends.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdio>
#include <exception>

#include "reentry.hpp"
#include "served.hpp"
#include "settings.hpp"

namespace collrepro::pmpi {

// False inside the library's own MPI calls and when the library is disabled: pass through.
inline bool intercepting() { return !Entered::inside() && settings().enabled; }

// Delay mode (delay.hpp): whether some rule names `c`, for a call the application made itself.
inline bool delaying(DelayCall c) { return settings().delays(c) && !Entered::inside(); }

// Runs `call` and then busy-waits `rule.fraction` of its measured duration (or `rule.seconds`) more, still inside
// the MPI library: the wait keeps its progress engine turning (PMPI_Iprobe), as a slower call
// would. A wait outside it would stall the other processes' transfers that need this one (Open
// MPI's shared-memory pipeline without single-copy: a 1 MiB call at +50% took 26x as long).
// `bytes` is the size the rule matched; the report counts the delayed calls per size, with the
// seconds spent in the calls and in the waits after them (served.hpp).
template <class F>
int delayed(const DelayRule& rule, std::size_t bytes, MPI_Comm comm, F&& call) {
  const double start = PMPI_Wtime();
  const int rc = call();
  const double end = PMPI_Wtime();
  const double until = end + (end - start) * rule.fraction + rule.seconds;
  int flag = 0;
  MPI_Status status;
  while (PMPI_Wtime() < until) PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &status);
  count_delayed(rule.call, bytes, end - start, PMPI_Wtime() - end);
  return rc;
}

// The MPI library's size of `type` in bytes, times `count` (0 on an error or a negative count).
inline std::size_t call_bytes(int count, MPI_Datatype type) {
  int size = 0;
  if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0) return 0;
  return static_cast<std::size_t>(count) * static_cast<std::size_t>(size);
}

// Runs `serve` marked as inside the library. A collective cannot fall back half-way through,
// so an exception (an MPI error, an argument the algorithm rejects) ends the job with one line
// rather than returning data nobody checked.
template <class F>
int guarded(const char* call, MPI_Comm comm, F&& serve) {
  Entered inside;
  try {
    return serve();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "collrepro-pmpi: %s failed: %s (COLLREPRO_PMPI_DISABLE=1 runs the native call)\n", call,
                 e.what());
    PMPI_Abort(comm, 1);
    return MPI_ERR_OTHER;
  }
}

}  // namespace collrepro::pmpi
