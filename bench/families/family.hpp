// Family adapters: how the driver sees a family of collectives without knowing any algorithm.
//
// A family (inter-group, isomorphic, intra, ...) has a typed algorithm interface in
// algorithms/include/collrepro/ (inter::InterAlgorithm, iso::IsoAlgorithm, ...). Its adapter
// is the only place in bench/ that knows that interface. It owns
//   - its sweep keys: it parses them into its own FamilySweep (pure, sweep.hpp);
//   - its shape: it expands a sweep into point shapes, each filling the CSV shape columns the
//     contract lists for the family (families.<name>.shape, contract/contract.json: stated
//     there only; Plan.EveryPointFillsExactlyItsFamilysContractShapeColumns checks them);
//   - the questions asked of algorithms: supports (given the MPI library's capabilities),
//     cost and lower bound;
//   - at run time (FamilySession), the context (communicators, cached per placement), the
//     buffers and the call arguments in the point's call form (blocking, nonblocking,
//     persistent: RunnerPoint::build times a persistent init), and the validation of a result
//     against the computed expectation and the family's native algorithm.
// The driver, the CSV writer and the metadata see only this interface.
//
// Adding a family: in bench/families/<family>_family.cpp, derive its adapter from
// TypedFamily<its algorithm interface, its PointShape, its FamilySession> (which answers the
// questions asked of algorithms), its prepared point from RunnerPoint, register the adapter with
// COLLBENCH_REGISTER_FAMILY, and add its shape columns to contract/contract.json. No shared
// file lists the families.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "collrepro/capabilities.hpp"
#include "collrepro/registry.hpp"
#include "config/placement.hpp"
#include "config/sweep.hpp"
#include "timing/prepared_point.hpp"

namespace collbench {

// A family's shape columns of one point, by name ("p" -> "4"); the others stay empty.
using ShapeValues = std::vector<std::pair<std::string, std::string>>;

// One shape of a family at one message size; pure data made by the family's adapter.
class PointShape {
 public:
  virtual ~PointShape() = default;
  virtual std::size_t msg_bytes() const = 0;  // the swept size (the x axis)
  // The bytes one rank allocates for the point's send and receive buffers (the largest
  // over ranks): checked against the node's memory before any allocation.
  virtual std::size_t buffer_bytes() const = 0;
  virtual ShapeValues columns() const = 0;
  // For messages and progress lines: "p=4 q=4 ka=64KiB kb=64KiB".
  virtual std::string describe() const = 0;
};

// A prepared point whose timed call is one collrepro::Runner: run() and the phase marks go to
// it. runner() is nullptr on a rank outside the point (run() then returns at once). The point
// keeps ownership, so that the runner is destroyed before the buffers and arguments it uses.
class RunnerPoint : public PreparedPoint {
 public:
  void run() final {
    if (auto* r = runner()) r->run();
  }
  void start() final {
    if (auto* r = runner()) collrepro::start_call(*r);
  }
  void wait() final {
    if (auto* r = runner()) collrepro::wait_call(*r);
  }
  bool in_point() const final { return runner() != nullptr; }
  std::vector<std::string> phases() const final {
    const auto* r = runner();
    return r ? r->phases() : std::vector<std::string>{};
  }
  void set_phase_clock(collrepro::PhaseClock* clock) final {
    if (auto* r = runner()) r->set_phase_clock(clock);
  }
  double init_s() const final { return init_s_; }

 protected:
  virtual collrepro::Runner* runner() const = 0;

  // The point's runner in form `call`, made by `make()` (nullptr on a rank outside the point).
  // Collective over `world` for a persistent call: after a barrier, the make() of every rank is
  // timed (MPI_Wtime) and the largest time is the point's init_s, outside the repetitions.
  template <class Make>
  std::unique_ptr<collrepro::Runner> build(MPI_Comm world, collrepro::CallForm call, Make make) {
    if (call != collrepro::CallForm::Persistent) return make();
    check_mpi(MPI_Barrier(world), "MPI_Barrier (before the persistent init)");
    const double t0 = MPI_Wtime();
    std::unique_ptr<collrepro::Runner> runner = make();
    double mine = MPI_Wtime() - t0;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_DOUBLE, MPI_MAX, world), "MPI_Allreduce (init time)");
    init_s_ = mine;
    return runner;
  }

 private:
  static void check_mpi(int rc, const char* what);
  double init_s_ = std::numeric_limits<double>::quiet_NaN();
};

// What a session needs of the run: the world, where every rank lives, the library's abilities.
struct RunEnvironment {
  MPI_Comm world = MPI_COMM_WORLD;
  std::vector<RankLocality> localities;  // per world rank
  collrepro::Capabilities caps;
  bool validation = true;
};

// The MPI side of one family during one run; caches contexts across points.
class FamilySession {
 public:
  virtual ~FamilySession() = default;
  // Collective over the world. `salt` varies the data pattern between points.
  // `call`: a form that algorithm.supports_call() accepted.
  virtual std::unique_ptr<PreparedPoint> prepare(const collrepro::Algorithm& algorithm, const PointShape& shape,
                                                 const std::string& placement, std::uint64_t salt,
                                                 collrepro::CallForm call) = 0;
  // How placements were realized (effective mapping and fallback notes), for the metadata.
  virtual nlohmann::json placement_report() const = 0;
};

// A family as the driver sees it: what the configuration reads through it (SweepFamily: its
// name, collectives and sweep keys, config/sweep.hpp) and everything else.
class FamilyAdapter : public SweepFamily {
 public:
  virtual std::vector<std::string> placements() const = 0;

  // The shapes of one sweep at `nprocs` processes, in a deterministic order with the message
  // size varying fastest. Throws ConfigError naming the field when something does not fit.
  virtual std::vector<std::shared_ptr<const PointShape>> shapes(const Sweep& sweep, int nprocs) const = 0;

  // The family's algorithms of collective c, in registry (name) order.
  virtual std::vector<const collrepro::Algorithm*> algorithms(collrepro::Collective c) const = 0;
  virtual collrepro::Support supports(const collrepro::Algorithm& a, const PointShape& s,
                                      const collrepro::Capabilities& caps) const = 0;
  virtual collrepro::Cost cost(const collrepro::Algorithm& a, const PointShape& s) const = 0;
  virtual collrepro::Cost bound(const collrepro::Algorithm& a, const PointShape& s) const = 0;
  virtual std::unique_ptr<FamilySession> open(const RunEnvironment& env) const = 0;
};

// Every registered family, ordered by name (filled before main(), immutable afterwards).
std::span<const FamilyAdapter* const> family_adapters();
// The family of collective c, or nullptr.
const FamilyAdapter* family_of(collrepro::Collective c);

// Adds a family at static-initialisation time, to this list and to the configuration's
// (sweep_families(), config/sweep.hpp); use COLLBENCH_REGISTER_FAMILY(Type) once, in the
// family's own source file, as algorithms use COLLREPRO_REGISTER.
struct FamilyRegistration {
  explicit FamilyRegistration(const FamilyAdapter& family);
};
#define COLLBENCH_REGISTER_FAMILY(Type)          \
  namespace {                                    \
  const Type collbench_family_instance;          \
  const ::collbench::FamilyRegistration collbench_family_registration{collbench_family_instance}; \
  }

// The family's registered algorithms of collective c with interface F, as Algorithm pointers.
template <class F>
std::vector<const collrepro::Algorithm*> registered(collrepro::Collective c) {
  std::vector<const collrepro::Algorithm*> out;
  for (const auto* a : collrepro::Registry::global().family<F>(c)) out.push_back(a);
  return out;
}

// The family's native algorithm of collective c (Kind::Native), or nullptr.
template <class F>
const F* native_of(collrepro::Collective c) {
  for (const auto* a : collrepro::Registry::global().family<F>(c))
    if (a->info().kind == collrepro::Kind::Native) return a;
  return nullptr;
}

// The part of a family adapter that is the same for every family: its algorithms are the
// registered ones with interface Algo, its shapes are ShapeT (a PointShape with shape(), the
// family's pure shape), and a run opens a Session(env). supports(), cost() and bound() forward to
// Algo; supports() passes the library's capabilities where Algo asks for them. A family
// overrides supports() to add its own conditions.
template <class Algo, class ShapeT, class Session>
class TypedFamily : public FamilyAdapter {
 public:
  std::vector<const collrepro::Algorithm*> algorithms(collrepro::Collective c) const final { return registered<Algo>(c); }
  collrepro::Support supports(const collrepro::Algorithm& a, const PointShape& s,
                              const collrepro::Capabilities& caps) const override {
    const Algo& algo = algorithm(a);
    const auto& shape = point(s).shape();
    if constexpr (requires { algo.supports(shape, caps); })
      return algo.supports(shape, caps);
    else if constexpr (requires { algo.supports(shape); })
      return algo.supports(shape);
    else  // Algo asks for more than the shape: the family overrides supports()
      return collrepro::Support::no("the " + name() + " family does not say which shapes it supports");
  }
  collrepro::Cost cost(const collrepro::Algorithm& a, const PointShape& s) const final {
    return algorithm(a).cost(point(s).shape());
  }
  collrepro::Cost bound(const collrepro::Algorithm& a, const PointShape& s) const final {
    return algorithm(a).lower_bound(point(s).shape());
  }
  std::unique_ptr<FamilySession> open(const RunEnvironment& env) const final { return std::make_unique<Session>(env); }

 protected:
  static const Algo& algorithm(const collrepro::Algorithm& a) { return dynamic_cast<const Algo&>(a); }
  static const ShapeT& point(const PointShape& s) { return dynamic_cast<const ShapeT&>(s); }
};

}  // namespace collbench
