// What a simulated launch records in its metadata (results/CONTRACT.md): simulated, platform,
// smpi_version, network_model, and a `simulation` object with the SimGrid configuration that
// determines the times. Only in the SimGrid SMPI variant (COLLREPRO_SMPI).
#pragma once

#include <nlohmann/json.hpp>

namespace collbench::sim {

// Collective-free; call after MPI_Init. Keys: simulated (true), platform (the platform file as
// given to bench/sim/simrun, else the root zone's name), smpi_version ("3.32.0"),
// network_model ("CM02"), simulation {...}.
nlohmann::json metadata();

}  // namespace collbench::sim
