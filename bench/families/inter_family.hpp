// The inter-group family's sweep keys (see inter_family.cpp for the adapter):
//   pair_mode      intercomm (default) | intracomm: how the two groups are connected
//   groups         {ratios: ["25/7", ...], sizes: ["6/2", ...]}: p:q scaled to the process
//                  count, or exactly p and q processes
//   blocks         ["1:1", "4:1", "1:0", ...]: kA:kB, the larger side gets the swept size;
//                  "1:0" is half-duplex A->B
//   distributions  allgatherv only: equal | arithmetic | random | random:<seed>
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "collrepro/group_pair.hpp"
#include "config/distribution.hpp"
#include "config/sweep.hpp"

namespace collbench {

// One entry of groups.ratios ("25/7": p:q scaled so that p + q = nprocs) or of groups.sizes
// ("6/2": exactly p and q processes).
struct GroupSpec {
  enum class Kind { Ratio, Sizes } kind = Kind::Ratio;
  long a = 1, b = 1;
  std::string text;   // as written
  std::string field;  // "groups.ratios[1]", "settings[2].groups.sizes[0]"
};

// One entry of `blocks`: the kA:kB block-size ratio ("1:1", "4:1", "1:0" = half-duplex A->B).
struct BlockRatio {
  std::size_t ka = 1, kb = 1;
  std::string text;
  std::string field;
};

struct InterSweep final : FamilySweep {
  collrepro::PairMode pair_mode = collrepro::PairMode::Intercomm;
  std::vector<GroupSpec> groups;
  std::vector<BlockRatio> blocks;
  std::vector<Distribution> distributions;
};

}  // namespace collbench
