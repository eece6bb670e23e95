// What the simulation shim's collective wrappers (bcast_choice.cpp, allgather_choice.cpp) ask of
// a datatype before they treat a buffer as plain bytes.
#pragma once

#include <smpi/smpi.h>

#include <cstddef>

namespace collbench::sim {

// The bytes of one element when `type` is contiguous (a basic type, or one whose extent is its
// size and whose lower bound is 0); 0 otherwise.
inline std::size_t contiguous_bytes(MPI_Datatype type) {
  int size = 0;
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_size(type, &size);
  MPI_Type_get_extent(type, &lb, &extent);
  return lb == 0 && extent == size ? static_cast<std::size_t>(size) : 0;
}

}  // namespace collbench::sim
