// A registered isomorphic algorithm defined by a pure schedule builder and run by the shared
// zero-copy executor (zero_copy_executor.hpp). The cost is the schedule's own: one alpha per
// communication step and the bytes it receives (schedule_cost), so it is exactly the paper's
// formula for the schedule (s(alpha + m beta), D alpha + V m beta, ...).
#pragma once

#include <climits>

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

}  // namespace collrepro::iso
