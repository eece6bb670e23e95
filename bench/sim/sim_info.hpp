// What a simulated launch records in its metadata (results/CONTRACT.md): simulated, platform,
// smpi_version, network_model, and a `simulation` object with the SimGrid configuration that
// determines the times. Only in the SimGrid SMPI variant (COLLREPRO_SMPI).
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

namespace collbench::sim {

// Collective-free; call after MPI_Init. Keys: simulated (true), platform (the platform file as
// given to bench/sim/simrun, else the root zone's name), smpi_version ("3.32.0"),
// network_model ("CM02"), simulation {...}.
nlohmann::json metadata();

// From how many bytes the simulated MPI_Bcast runs the shim's own scatter + ring broadcast
// (bcast_choice.cpp): 2 GiB, or COLLREPRO_SIM_WIDE_BCAST_FROM.
std::size_t wide_bcast_from();

// Whether collbench's MPI_Bcast and MPI_Allgather take MPICH's large-message choices
// (bcast_choice.cpp, allgather_choice.cpp): yes, unless simrun runs another library's selector
// (simrun --coll-selector ompi sets COLLREPRO_SIM_MPICH_CHOICES=0) and the selector decides alone.
bool mpich_choices();

}  // namespace collbench::sim
