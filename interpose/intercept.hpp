// What every intercept shares: whether to look at a call at all, and how a failure ends.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <exception>

#include "reentry.hpp"
#include "settings.hpp"

namespace collrepro::pmpi {

// False inside the library's own MPI calls and when the library is disabled: pass through.
inline bool intercepting() { return !Entered::inside() && settings().enabled; }

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
