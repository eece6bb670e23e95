// The algorithm registry.
//
// Every algorithm registers itself once, at static-initialisation time, with
// COLLREPRO_REGISTER(Type) in its own source file (as Google Benchmark's BENCHMARK() does).
// The registry is filled before main() and never changes afterwards; the driver and the
// tests look algorithms up by (collective, name) and never special-case a name.
//
// An entry carries: a stable kebab-case name (a CSV key), the collective, the topology it
// is designed for, its kind (proposed, baseline, native), its source and its cost formula
// as text. Each collective family (intergroup.hpp, isomorphic.hpp) adds a typed interface:
// supports(shape) with a reason, the cost-model prediction, and prepare() -> Runner.
#pragma once

#ifdef COLLREPRO_PLAN_ONLY
#error "a pure plan (collplan) must not include the registry or MPI: use collrepro/cost.hpp"
#endif

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collrepro/cost.hpp"

namespace collrepro {

enum class Collective {
  Allgather, Allgatherv,                                     // inter-group (two groups)
  NeighborAlltoall, NeighborAllgather, NeighborAlltoallw,    // isomorphic (torus neighborhoods)
  IntraAllgather, IntraAllgatherv, IntraGather, IntraBcast,  // one intracommunicator
};
// Every collective, in enum order.
const std::vector<Collective>& all_collectives();
const char* to_string(Collective c);
Collective collective_from_string(const std::string& s);  // throws std::invalid_argument

enum class Kind { Proposed, Baseline, Native };
const char* to_string(Kind k);

struct AlgorithmInfo {
  std::string name;        // kebab-case, stable: a CSV key
  Collective collective;
  std::string topology;    // "fully-connected", "ring", "torus"
  Kind kind;
  std::string source;      // paper, section, algorithm number
  std::string cost;        // cost formula in the paper's model, as text
};

// Receives the phase marks of a Runner (timing.phases; bench/timing/measure.cpp reads a clock).
class PhaseClock {
 public:
  virtual ~PhaseClock() = default;
  virtual void mark() = 0;
};

// A prepared call: everything set up outside the timed region; run() is what is timed.
//
// Phases (optional, for the per-phase timing): a runner that names its phases in phases()
// calls end_phase() once at the end of each, in that order, on every rank, the last one as
// run()'s final step. A rank with nothing to do in a phase still marks its end, so that every
// rank marks the same number of phases. With no clock set, end_phase() is one branch.
class Runner {
 public:
  virtual ~Runner() = default;
  virtual void run() = 0;
  // The phases run() marks, in order; the same on every rank of the call. Empty: run() is
  // one phase (the measurer names it "call").
  virtual std::vector<std::string> phases() const { return {}; }
  void set_phase_clock(PhaseClock* clock) { phase_clock_ = clock; }

 protected:
  void end_phase() {
    if (phase_clock_) phase_clock_->mark();
  }

 private:
  PhaseClock* phase_clock_ = nullptr;
};

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual const AlgorithmInfo& info() const = 0;
};

class Registry {
 public:
  static Registry& global();

  // Throws std::logic_error on a duplicate (collective, name). `file` is the registering
  // source file (__FILE__), kept relative to the repository (from "algorithms/" on).
  bool add(std::unique_ptr<const Algorithm> algorithm, std::string_view file = {});

  std::vector<const Algorithm*> all() const;
  std::vector<const Algorithm*> of(Collective c) const;
  // nullptr when absent.
  const Algorithm* find(Collective c, const std::string& name) const;
  // The source file that registered `a` ("algorithms/isomorphic/torus.cpp"), "" if unknown.
  std::string source_file(const Algorithm& a) const;

  // The algorithms of collective c with the family interface F, in name order.
  template <class F>
  std::vector<const F*> family(Collective c) const {
    std::vector<const F*> out;
    for (const Algorithm* a : of(c))
      if (const auto* f = dynamic_cast<const F*>(a)) out.push_back(f);
    return out;
  }

 private:
  struct Entry {
    std::unique_ptr<const Algorithm> algorithm;
    std::string file;
  };
  std::vector<Entry> entries_;
};

}  // namespace collrepro

#define COLLREPRO_CONCAT_INNER(a, b) a##b
#define COLLREPRO_CONCAT(a, b) COLLREPRO_CONCAT_INNER(a, b)
// Registers one instance of Type (default-constructible) in the global registry, with the
// file it is registered from.
#define COLLREPRO_REGISTER(Type)                                               \
  [[maybe_unused]] static const bool COLLREPRO_CONCAT(collrepro_registered_, __LINE__) = \
      ::collrepro::Registry::global().add(std::make_unique<Type>(), __FILE__)
