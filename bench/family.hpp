// Family adapters: how the driver sees a collective family without knowing any algorithm.
//
// A family (inter-group, isomorphic, ...) has a typed algorithm interface in
// algorithms/include/collrepro/ (inter::InterAlgorithm, iso::...). Its adapter is the only
// place in bench/ that knows that interface. It
//   - expands one sweep of the configuration into point shapes (pure, before any MPI work),
//     rejecting what does not fit with a ConfigError naming the field;
//   - asks the algorithms whether they support a shape, and for their cost and lower bound;
//   - at run time (FamilySession) builds the context (communicators, cached per placement),
//     the buffers and the call arguments, prepares the algorithm's runner, and validates the
//     result against the computed expectation and against the family's native algorithm.
// The driver iterates the registry through adapters only; it never names an algorithm.
//
// Adding a family: implement FamilyAdapter (+ FamilySession, PreparedPoint) in
// bench/<family>_family.cpp and list it in family_adapters() (family.cpp).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collrepro/registry.hpp"
#include "config.hpp"
#include "placement.hpp"

namespace collbench {

// The CSV columns that describe a shape (results/CONTRACT.md).
struct ShapeColumns {
  int p = 0, q = 0;
  std::size_t ka = 0, kb = 0;
  std::string neighborhood, dims;
  std::size_t msg_bytes = 0;
};

// One shape of a family at one message size; pure data made by the family's adapter.
class PointShape {
 public:
  virtual ~PointShape() = default;
  virtual const ShapeColumns& columns() const = 0;
  // For messages and progress lines: "p=4 q=4 ka=64KiB kb=64KiB".
  virtual std::string describe() const = 0;
};

// A point ready to be timed: context, buffers and the algorithm's runner, all set up.
class PreparedPoint {
 public:
  virtual ~PreparedPoint() = default;
  // The timed call. Every rank of the world calls it; ranks outside the point return at once.
  virtual void run() = 0;
  // Runs the call once and checks this rank's result; nullopt when correct, else a message
  // naming this rank and the first wrong byte. Collective like run().
  virtual std::optional<std::string> validate() = 0;
};

// What a session needs of the run: the world and where every rank lives.
struct RunEnvironment {
  MPI_Comm world = MPI_COMM_WORLD;
  std::vector<RankLocality> localities;  // per world rank
};

// The MPI side of one family during one run; caches contexts across points.
class FamilySession {
 public:
  virtual ~FamilySession() = default;
  // Collective over the world. `salt` varies the data pattern between points.
  virtual std::unique_ptr<PreparedPoint> prepare(const collrepro::Algorithm& algorithm, const PointShape& shape,
                                                 const std::string& placement, std::uint64_t salt) = 0;
  // How placements were realized (effective mapping and fallback notes), for the metadata.
  virtual nlohmann::json placement_report() const = 0;
};

class FamilyAdapter {
 public:
  virtual ~FamilyAdapter() = default;
  virtual std::string name() const = 0;  // "inter-group"
  virtual bool handles(collrepro::Collective c) const = 0;
  // The sweep keys this family reads for collective c (others given explicitly are an error).
  virtual std::vector<std::string> sweep_fields(collrepro::Collective c) const = 0;
  virtual std::vector<std::string> placements() const = 0;
  // The shapes of one sweep at `nprocs` processes, in a deterministic order with the message
  // size varying fastest. Throws ConfigError naming the field when something does not fit.
  virtual std::vector<std::shared_ptr<const PointShape>> shapes(const Sweep& sweep, int nprocs) const = 0;
  // The family's algorithms of collective c, in registry (name) order.
  virtual std::vector<const collrepro::Algorithm*> algorithms(collrepro::Collective c) const = 0;
  virtual collrepro::Support supports(const collrepro::Algorithm& a, const PointShape& s) const = 0;
  virtual collrepro::Cost cost(const collrepro::Algorithm& a, const PointShape& s) const = 0;
  virtual collrepro::Cost bound(const collrepro::Algorithm& a, const PointShape& s) const = 0;
  virtual std::unique_ptr<FamilySession> open(const RunEnvironment& env, bool validation) const = 0;
};

// Every family this build knows, in a fixed order (immutable).
std::span<const FamilyAdapter* const> family_adapters();
// The adapter of collective c; throws ConfigError naming `field` when no family handles it.
const FamilyAdapter& adapter_for(collrepro::Collective c, const std::string& field);

// The adapters (defined in their own files).
const FamilyAdapter& inter_family();
// Nullptr when this build has no isomorphic family interface yet.
const FamilyAdapter* iso_family();

}  // namespace collbench
