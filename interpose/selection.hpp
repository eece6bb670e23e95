// Which algorithm serves a call: COLLREPRO_PMPI_DISABLE, then COLLREPRO_PMPI_FORCE, then the
// rules file, then the registry's cost model (the cheapest supported algorithm, natives
// included: when a native call models cheapest, it runs). A forced or ruled algorithm that does
// not support the shape falls back to the native call, with one warning per process and name.
// Every input is global (the same on every process of the call), so every process chooses the
// same algorithm.
#pragma once

#include <string>
#include <vector>

#include "collrepro/registry.hpp"
#include "rules.hpp"
#include "settings.hpp"

namespace collrepro::pmpi {

// The cost model's constants for the built-in default: 1 us start-up, 1 GB/s.
inline constexpr double kAlpha = 1e-6;
inline constexpr double kBeta = 1e-9;

// A registered algorithm of the collective, as the family sees this call's shape.
struct Candidate {
  const Algorithm* algorithm = nullptr;
  Support support;
  Cost cost;  // meaningful only when supported
};

// nullptr: the native call. `shape` describes the call in warnings.
const Algorithm* select(const Settings& s, const Query& q, const std::vector<Candidate>& candidates,
                        const std::string& shape);

}  // namespace collrepro::pmpi
