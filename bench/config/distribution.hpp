// Block-size distributions: how the blocks of the processes of a group (or communicator)
// vary around a nominal size, for the v-collectives (Allgatherv) of the inter-group and intra
// families. The CSV records the distribution's name and seed (contract: distribution,
// dist_seed); the Python tools recompute the sizes (python/collrepro/distributions.py).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "collrepro/contract_enums.hpp"

namespace collbench {

// How Allgatherv block sizes vary between the processes of a group (distribute()).
struct Distribution {
  using Kind = collrepro::contract::DistributionKind;  // enums.distribution
  Kind kind = Kind::Equal;
  std::uint64_t seed = 0;  // Random only
  std::string field;

  std::string name() const;  // "equal", "arithmetic", "random" (the CSV distribution column)
};

// Block sizes of n processes with nominal per-process size s.
//   equal       s each
//   arithmetic  2 (i+1) ceil(s/n): seed 001's generator (mean ~ s, largest ~ 2s)
//   random      uniform in [0, 2s] from a fixed hash of (i, n, s, seed): mean ~ s, reproducible
// The Python tools recompute these (python/collrepro/distributions.py); both are checked against
// contract/golden/distributions.json (tests/driver/golden_test.cpp, tests/python/test_golden.py).
std::vector<std::size_t> distribute(const Distribution& d, std::size_t s, int n);

// (s_A, s_B): the swept size split by the block ratio ka:kb, the larger side getting `size`
// (integer arithmetic, no overflow for any size that fits in 64 bits).
std::pair<std::size_t, std::size_t> nominal_sizes(std::size_t size, std::size_t ka, std::size_t kb);

// Parses "equal", "arithmetic", "random" or "random:<seed>"; ConfigError naming `field`.
Distribution parse_distribution(const std::string& text, const std::string& field);

}  // namespace collbench
