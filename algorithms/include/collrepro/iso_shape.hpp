// The global shape of one isomorphic collective call (what a config point describes): the
// neighbourhood, the torus dimensions and the block sizes. Algorithms read it in supports()
// and cost(); at run time they see only their IsoComm and Args. Pure: no MPI.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "collrepro/contract_enums.hpp"
#include "collrepro/neighborhood.hpp"

namespace collrepro::iso {

// How block sizes follow from Shape::block: the contract's enum (block_rule; one spelling in the
// configuration, the CSV and the messages):
//   Uniform   every block has m = block bytes (all-to-all, allgather, and all-to-allw);
//   Distance  block i has mhat^(d - ||C^i||) bytes, mhat = block: the irregular distribution of
//             seed 004 §4 / Fig. 3 (corners small, faces large); defined for ||C^i|| <= d only,
//             i.e. r = 1 neighbourhoods (seed 004 §4, Fig. 3).
using BlockRule = contract::BlockRule;

struct Shape {
  Neighborhood neighborhood;
  std::vector<int> dims;  // empty or d entries; a 0 entry is chosen by MPI_Dims_create at run time
  std::size_t block = 0;  // m (Uniform) or mhat (Distance), bytes
  BlockRule rule = BlockRule::Uniform;

  static Shape regular(Neighborhood n, std::size_t m, std::vector<int> dims = {});
  static Shape seed_irregular(Neighborhood n, std::size_t mhat, std::vector<int> dims = {});

  // Why no algorithm can run this shape (empty neighbourhood, dims of the wrong length or
  // negative, the seed rule with ||C^i|| > d, a block above 2 GiB - 1); nullopt when valid.
  std::optional<std::string> invalid() const;
  // m_0..m_{s-1}, bytes. Throws std::invalid_argument on an invalid shape.
  std::vector<std::size_t> block_bytes() const;
  std::size_t total_bytes() const;  // sum of block_bytes()
  // "moore:d=3,r=1 dims=auto m=64" or "... dims=4x2x1 mhat=8 (m_i = mhat^(d-|C^i|))"
  std::string describe() const;
};

}  // namespace collrepro::iso
