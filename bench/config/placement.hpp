// Placements: which world ranks form group A and group B (pure; no MPI).
//
//   block        A = ranks 0..p-1, B = ranks p..p+q-1 (seed 001's code)
//   interleaved  ranks alternate A, B while both last (collrepro::interleaved_sides)
//   nodes        A and B on disjoint nodes: ranks ordered by (node, rank), A takes the
//                first p; on a single node it places by package like `sockets`
//   sockets      A and B on disjoint packages (sockets) of each node, via the hwloc package
//                of each rank's binding; needs bound ranks
// When a placement cannot separate the groups (one node with one package, unbound ranks,
// p not ending at a node boundary) it falls back and says so in `note`; the CSV keeps the
// requested name, the metadata records the effective mapping and the note.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace collbench {

struct RankLocality {
  int node = 0;      // index of the node (shared-memory domain)
  int package = -1;  // hwloc package of the rank's binding; -1 when not bound inside one
};

struct PlacementResult {
  std::vector<int> sides;  // per world rank: 0 (A), 1 (B) or -1 (idle)
  std::string effective;   // what was realized: block, interleaved, nodes, sockets
  std::string note;        // empty, or why the placement fell back / is imperfect
};

const std::vector<std::string>& placement_names();

// Throws std::invalid_argument for an unknown placement or p + q > ranks.size().
PlacementResult place_groups(const std::string& placement, int p, int q, std::span<const RankLocality> ranks);

}  // namespace collbench
