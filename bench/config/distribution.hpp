// Block-size distributions: how the blocks of the processes of a group (or communicator)
// vary around a nominal size, for the v-collectives (Allgatherv) of the inter-group and intra
// families. The CSV records the distribution's name and seed (contract: distribution,
// dist_seed); the Python tools recompute the sizes (python/collrepro/distributions.py).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace collbench {

// How Allgatherv block sizes vary between the processes of a group (distribute()).
struct Distribution {
  enum class Kind { Equal, Arithmetic, Random } kind = Kind::Equal;
  std::uint64_t seed = 0;  // Random only
  std::string field;

  std::string name() const;  // "equal", "arithmetic", "random" (the CSV distribution column)
};

// Block sizes of n processes with nominal per-process size s.
//   equal       s each
//   arithmetic  2 (i+1) ceil(s/n): seed 001's generator (mean ~ s, largest ~ 2s)
//   random      uniform in [0, 2s] from a fixed hash of (i, n, s, seed): mean ~ s, reproducible
// The Python tools recompute these (python/collrepro/distributions.py): keep both in step.
std::vector<std::size_t> distribute(const Distribution& d, std::size_t s, int n);

// Parses "equal", "arithmetic", "random" or "random:<seed>"; ConfigError naming `field`.
Distribution parse_distribution(const std::string& text, const std::string& field);

}  // namespace collbench
