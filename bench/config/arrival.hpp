// The arrival pattern of a sweep as the configuration gives it (the sweep key arrival: pattern,
// max_delay, seed). What the patterns mean and the delays they give each rank are the timing's
// (timing/arrival.hpp); the configuration only reads and bounds them (config.cpp).
#pragma once

#include <cstdint>

#include "config/enums.hpp"

namespace collbench {

using ArrivalPattern = collrepro::contract::ArrivalPattern;  // enums.arrival (config/enums.hpp)

// The largest max_delay a configuration may ask for (seconds).
inline constexpr double kMaxArrivalDelay = 1.0;

struct Arrival {
  ArrivalPattern pattern = ArrivalPattern::None;
  double max_delay_s = 0;  // 0 for none
  std::uint64_t seed = 0;  // random only

  bool skewed() const { return pattern != ArrivalPattern::None; }
};

}  // namespace collbench
