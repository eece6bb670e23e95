// A registered isomorphic algorithm defined by a pure schedule builder and run by the shared
// zero-copy executor (zero_copy_executor.hpp). The cost is the schedule's own: one alpha per
// communication step and the bytes it receives (schedule_cost), so it is exactly the paper's
// formula for the schedule (s(alpha + m beta), D alpha + V m beta, ...).
// Also the registration helper of the whole isomorphic family (COLLREPRO_REGISTER_ISO): one
// line registers a name for all-to-all, allgather and all-to-allw. Documentation of each
// algorithm: docs/algorithms/<name>.md.
#pragma once

#include <climits>
#include <memory>
#include <string>

#include "collrepro/iso_schedule.hpp"
#include "collrepro/isomorphic.hpp"
#include "zero_copy_executor.hpp"

namespace collrepro::iso {

using ScheduleBuilder = Schedule (*)(const Neighborhood&);

class ScheduledAlgorithm : public IsoAlgorithm {
 public:
  ScheduledAlgorithm(AlgorithmInfo info, ScheduleBuilder build) : IsoAlgorithm(std::move(info)), build_(build) {}

  Cost cost(const Shape& shape) const override {
    const auto m = shape.block_bytes();
    return schedule_cost(build_(shape.neighborhood), m);
  }

  std::unique_ptr<Runner> prepare(const IsoComm& comm, const Args& args) const override {
    args.validate(info().collective, comm.neighborhood().size());
    return std::make_unique<PlanRunner>(comm, build_(comm.neighborhood()), args);
  }

  // Every scheduled algorithm: its steps as requests (StartedPlanRunner, zero_copy_executor.hpp).
  std::vector<CallForm> calls() const override { return every_call_form(); }
  std::unique_ptr<Runner> prepare_call(const IsoComm& comm, const Args& args, CallForm form) const override {
    if (form == CallForm::Blocking) return prepare(comm, args);
    args.validate(info().collective, comm.neighborhood().size());
    return std::make_unique<StartedPlanRunner>(comm, build_(comm.neighborhood()), args, form);
  }

 protected:
  // A combined message is one MPI datatype: its size must fit an int.
  Support supports_shape(const Shape& shape, const Capabilities&) const override {
    const auto m = shape.block_bytes();
    const std::size_t largest = max_step_bytes(build_(shape.neighborhood), m);
    if (largest > static_cast<std::size_t>(INT_MAX))
      return Support::no("a combined message would carry " + std::to_string(largest) + " bytes (> 2 GiB - 1)");
    return Support::yes();
  }

 private:
  ScheduleBuilder build_;
};

// ---- registration --------------------------------------------------------------------------
// Every isomorphic algorithm NAME is registered for the three collectives at once. The texts of
// one name, one per collective, in the registry's order.
struct PerCollective {
  std::string alltoall, allgather, alltoallw;
};

// The texts of an MPI_Neighbor_* baseline: the call per collective, then how the graph is built
// (`graph`); the cost is the library's, modelled as s direct messages.
inline PerCollective neighbor_call_sources(const std::string& graph) {
  return {"MPI_Neighbor_alltoall, " + graph, "MPI_Neighbor_allgather, " + graph, "MPI_Neighbor_alltoallw, " + graph};
}
inline PerCollective neighbor_call_costs() {
  const std::string modelled = "library-defined; modelled as s alpha + sum_i m_i beta";
  return {modelled, modelled, modelled};
}

// Registers `name` for neighbor-alltoall, neighbor-allgather and neighbor-alltoallw: one Algo
// (constructed from AlgorithmInfo and a builder) per collective, all-to-all and all-to-allw
// built with `alltoall` (they share their schedules or graphs), allgather with `allgather`;
// `mock_up_of`: the performance guideline of a mock-up, the same for the three collectives.
// `file` is the registering source file (__FILE__). Use COLLREPRO_REGISTER_ISO.
template <class Algo, class Builder>
bool register_iso(const char* file, const char* name, Kind kind, const PerCollective& source,
                  const PerCollective& cost, Builder alltoall, Builder allgather, const MockUpOf& mock_up_of = {}) {
  struct One {
    Collective collective;
    const std::string& source;
    const std::string& cost;
    Builder build;
  };
  for (const One& o : {One{Collective::NeighborAlltoall, source.alltoall, cost.alltoall, alltoall},
                       One{Collective::NeighborAllgather, source.allgather, cost.allgather, allgather},
                       One{Collective::NeighborAlltoallw, source.alltoallw, cost.alltoallw, alltoall}})
    Registry::global().add(
        std::make_unique<Algo>(AlgorithmInfo{name, o.collective, Topology::Torus, kind, o.source, o.cost, mock_up_of}, o.build),
        file);
  return true;
}

}  // namespace collrepro::iso

// COLLREPRO_REGISTER_ISO(Algo, name, kind, {sources}, {costs}, alltoall builder, allgather
// builder[, MockUpOf]): one line per algorithm name, at namespace scope in its own source file.
#define COLLREPRO_REGISTER_ISO(Algo, ...)                                                    \
  [[maybe_unused]] static const bool COLLREPRO_CONCAT(collrepro_registered_, __LINE__) = \
      ::collrepro::iso::register_iso<Algo>(__FILE__, __VA_ARGS__)
