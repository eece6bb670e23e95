// Facts about this run for the metadata and the CSV identity columns.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

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

// Where this binary came from, fixed at build time (bench/output/build_info.cmake): git_revision,
// git_dirty, compiler, build_type. No process is started to find out.
nlohmann::json build_provenance();

// Extra metadata from parts linked into a variant of collbench (the SimGrid shim registers
// the simulated platform and SimGrid's configuration). Each hook returns keys to add.
using MetadataHook = nlohmann::json (*)();
bool add_metadata_hook(MetadataHook hook);  // at static initialization; returns true
nlohmann::json hooked_metadata();           // the union of every hook's keys

}  // namespace collbench
