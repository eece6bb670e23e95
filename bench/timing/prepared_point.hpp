// What the timing sees of a point: the timed call and what the measurement asks of it. A family
// prepares it (its context, buffers and the algorithm's runner; families/family.hpp, RunnerPoint),
// the measurement times it (measure.hpp, phase_timer.hpp), the driver validates it; so it is
// declared here, below the families, and the timing never includes them.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "collrepro/registry.hpp"

namespace collbench {

// A point ready to be timed: context, buffers and the algorithm's runner, all set up.
class PreparedPoint {
 public:
  virtual ~PreparedPoint() = default;
  // The timed call. Every rank of the world calls it; ranks outside the point return at once.
  virtual void run() = 0;
  // The timed call in two halves, for the overlap measurement (measure.hpp): start() begins it
  // and returns, wait() completes it. A blocking call does all of its work in start(). Ranks
  // outside the point return at once from both.
  virtual void start() { run(); }
  virtual void wait() {}
  // Whether this rank takes part in the point (false: an idle rank, e.g. beyond groups.sizes).
  // The measurement gives arrival delays to the point's ranks only and leaves the others out
  // of its reductions (timing/measure.hpp).
  virtual bool in_point() const = 0;
  // Runs the call once and checks this rank's result; nullopt when correct, else a message
  // naming this rank and the first wrong byte. Collective like run().
  virtual std::optional<std::string> validate() = 0;
  // Per-phase timing: the phases this rank's call marks (collrepro::Runner::phases(); empty on
  // a rank outside the point or for a call that is one phase), and where run() sends the marks
  // (nullptr: nowhere).
  virtual std::vector<std::string> phases() const { return {}; }
  virtual void set_phase_clock(collrepro::PhaseClock*) {}
  // Call persistent: the seconds of the point's one init, max over ranks; NaN for other forms.
  virtual double init_s() const { return std::numeric_limits<double>::quiet_NaN(); }
};

}  // namespace collbench
