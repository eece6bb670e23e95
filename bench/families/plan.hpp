// The experiment plan: the deterministic list of points of a configuration at a process
// count, and the (algorithm, shape) combinations skipped because the algorithm does not
// support the shape (with the algorithm's reason).
//
// Order: settings in file order; within a setting placements, then the family's shapes
// (groups, blocks, distributions, sizes; size fastest), then algorithms in registry order, then
// the call forms in the order of the sweep key call (blocking alone by default, so that the ids
// of a configuration without it are those of before). A form the algorithm does not offer on
// this library (Algorithm::supports_call) is skipped with its reason, as a shape is.
// A point's id is its index in this list: stable across launches and slices of the same
// configuration and process count. `--slice S/T` takes the S-th of T contiguous chunks.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "collrepro/capabilities.hpp"
#include "collrepro/registry.hpp"
#include "config/config.hpp"
#include "families/family.hpp"

namespace collbench {

struct Candidate {
  int point = -1;  // id when supported, -1 when skipped
  std::size_t sweep = 0;
  std::string setting;
  collrepro::Collective collective{};
  const collrepro::Algorithm* algorithm = nullptr;
  collrepro::CallForm call = collrepro::CallForm::Blocking;
  const FamilyAdapter* family = nullptr;
  std::shared_ptr<const PointShape> shape;
  std::string placement;
  bool supported = true;
  std::string reason;  // why not supported
  collrepro::Cost cost, bound;
};

struct Plan {
  std::vector<Candidate> candidates;  // enumeration order, supported and skipped
  std::vector<std::size_t> points;    // indices into candidates of the supported ones (id order)

  const Candidate& point(std::size_t id) const { return candidates[points[id]]; }
  std::size_t size() const { return points.size(); }
  // Point ids of each setting (for the metadata: analysis/ matches settings by points).
  std::vector<std::vector<int>> points_per_sweep(std::size_t sweeps) const;
};

// Throws ConfigError (unknown algorithm, unsupported explicit algorithm, groups that do not
// fit, no point at all). `caps`: what the MPI library offers (the default: everything).
Plan make_plan(const Config& config, int nprocs, const collrepro::Capabilities& caps = {});

// [begin, end) of chunk `s` (0-based) of `t` contiguous chunks of n points.
std::pair<std::size_t, std::size_t> slice_range(std::size_t n, int s, int t);

// "p=4 q=4 ka=64KiB kb=64KiB size=64KiB" (and " call=persistent" for a form other than
// blocking): a candidate in messages and in the dry-run listing (output/plan_listing.hpp).
std::string shape_text(const Candidate& c);

}  // namespace collbench
