// Small collective helpers over MPI_COMM_WORLD for the driver: a rank's number, strings
// broadcast from or gathered to rank 0, and rank-0-only work whose failure every rank sees.
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "base/errors.hpp"

namespace collbench {

int world_rank();
std::string bcast_string(std::string s);  // rank 0's string, on every rank
std::vector<std::string> gather_strings(const std::string& mine);  // rank 0: one per rank

// Runs f on rank 0 only; an exception there is rethrown on every rank, so that all ranks leave
// together and rank 0 alone reports it: a ConfigError as a ConfigError, anything else as a
// SharedError carrying its exit code (an IoError 5, a ValidationError 3, others 4).
template <class F>
void on_root(F&& f) {
  std::string error;
  char kind = 0;
  if (world_rank() == 0) {
    try {
      f();
    } catch (const ConfigError& e) {
      error = e.what(), kind = 'c';
    } catch (const IoError& e) {
      error = e.what(), kind = 'i';
    } catch (const ValidationError& e) {
      error = e.what(), kind = 'v';
    } catch (const SharedError& e) {
      error = e.what(), kind = static_cast<char>(e.code());
    } catch (const std::exception& e) {
      error = e.what(), kind = 'r';
    }
  }
  error = bcast_string(kind ? std::string(1, kind) + error : "");
  if (error.empty()) return;
  const std::string what = error.substr(1);
  switch (error[0]) {
    case 'c': throw ConfigError(what);
    case 'i': throw SharedError(kExitEnvironment, what);
    case 'v': throw SharedError(kExitValidation, what);
    case 'r': throw SharedError(kExitRuntime, what);
    default: throw SharedError(static_cast<unsigned char>(error[0]), what);
  }
}

}  // namespace collbench
