// Small collective helpers over MPI_COMM_WORLD for the driver: a rank's number, strings
// broadcast from or gathered to rank 0, and rank-0-only work whose failure every rank sees.
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "errors.hpp"

namespace collbench {

int world_rank();
std::string bcast_string(std::string s);  // rank 0's string, on every rank
std::vector<std::string> gather_strings(const std::string& mine);  // rank 0: one per rank

// Runs f on rank 0 only; an exception there is rethrown on every rank (as a ConfigError
// when it was one, else as a runtime error), so that all ranks leave together.
template <class F>
void on_root(F&& f) {
  std::string error;
  char kind = 0;
  if (world_rank() == 0) {
    try {
      f();
    } catch (const ConfigError& e) {
      error = e.what(), kind = 'c';
    } catch (const std::exception& e) {
      error = e.what(), kind = 'r';
    }
  }
  error = bcast_string(kind ? std::string(1, kind) + error : "");
  if (error.empty()) return;
  if (error[0] == 'c') throw ConfigError(error.substr(1));
  throw std::runtime_error(error.substr(1));
}

}  // namespace collbench
