// Where the processes run (hwloc and MPI_Comm_split_type): node split, node leaders,
// per-rank host, cpuset, core(s), package and NUMA node, optional binding, and how many ranks
// share a core (oversubscription.hpp).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collrepro/mpi.hpp"
#include "config/placement.hpp"
#include "timing/oversubscription.hpp"

namespace collbench {

struct Machine {
  collrepro::Comm node;     // the ranks of my node (MPI_COMM_TYPE_SHARED), ordered by world rank
  collrepro::Comm leaders;  // one rank per node (node rank 0); null on the other ranks
  int world_rank = 0, world_size = 1;
  int node_index = 0, nodes = 1, ppn = 1, node_rank = 0, node_size = 1;
  std::vector<RankLocality> localities;  // per world rank
  nlohmann::json bindings;  // rank 0: [{rank, host, cpuset, core, package, numa}]
  nlohmann::json hwloc;     // {packages, cores, pus, numa} of rank 0's node
  std::string host;
  std::string cpu_model;
  std::vector<std::string> notes;  // binding remarks (rank 0)
  Oversubscription oversubscription;  // rank 0: ranks per core at start
};

// Collective over world. binding = "core": bind each rank to one core (node rank modulo the
// number of cores) unless the launcher already bound it.
Machine discover_machine(MPI_Comm world, const std::string& binding);

}  // namespace collbench
