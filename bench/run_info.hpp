// Facts about this run for the metadata and the CSV identity columns.
#pragma once

#include <string>

namespace collbench {

struct MpiLibrary {
  std::string library;  // MPI_Get_library_version, first line
  std::string full;     // the whole string
  std::string impl;     // openmpi | mpich | intel | mvapich | other
  std::string version;  // "4.1.4"
};

MpiLibrary mpi_library();
// MPI_Get_library_version parsed: (impl, version). Pure, for tests.
MpiLibrary parse_mpi_library(const std::string& text);

std::string utc_now();          // "2024-05-01T12:00:00.123Z"
std::string git_revision();     // of the source tree this was built from; "unknown" if none
std::string compiler();         // "GCC 12.2.0"

}  // namespace collbench
