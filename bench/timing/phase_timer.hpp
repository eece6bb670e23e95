// Per-phase timing (timing.phases; bench/README.md, "Phases").
//
// An algorithm's runner names its phases and marks the end of each (collrepro::Runner,
// algorithms/include/collrepro/registry.hpp). During the timed repetitions a PhaseTimer takes
// every mark's time on the clock that times the repetition, as an offset from the
// repetition's start (the local start after the barrier, or the agreed global start). After
// the repetitions one reduction takes, per repetition and phase, the maximum over ranks: the
// time E_j at which the last rank finished phase j. A phase's time is E_j - E_{j-1} (E_{-1} = 0):
// from the moment the last rank left the previous phase to the moment the last rank left this
// one. The last phase ends at the repetition's end, as the measurer reads it, so the phases of
// one repetition add up to its time_s (to rounding).
//
// A call that names no phases marks nothing: its phases end at its end (a call with no phases
// anywhere is one phase, "call"). A rank outside the point ends every phase at 0, out of the
// maximum (its end is no part of the point's time).
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collrepro/registry.hpp"
#include "timing/prepared_point.hpp"

namespace collbench {

class PhaseTimer final : public collrepro::PhaseClock {
 public:
  // Collective over `world`: agrees on the phase names of the point (every rank that names
  // phases must name as many; std::logic_error otherwise) and attaches to the point.
  PhaseTimer(MPI_Comm world, PreparedPoint& point, std::function<double()> now);
  ~PhaseTimer() override;  // detaches from the point
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

  void mark() override { marks_.push_back(now_()); }
  // Ends one repetition that started at `start` and ended at `end` (the clock of now()).
  void end_repetition(double start, double end);
  // Collective: rank 0 gets the names and, per repetition, the phase ends (max over ranks),
  // repetitions x phases, in seconds from the repetition's start.
  void collect(std::vector<std::string>& names, std::vector<double>& ends) const;

 private:
  MPI_Comm world_;
  PreparedPoint& point_;
  std::function<double()> now_;
  std::vector<std::string> names_;  // rank 0: the agreed names
  std::size_t count_ = 0;           // the agreed number of phases
  std::vector<double> marks_;       // this repetition's marks
  std::vector<double> ends_;        // this rank: repetitions x phases, offsets from the start
};

// A PhaseTimer when timing.phases is on, else nullptr (collective over world when on).
std::unique_ptr<PhaseTimer> phase_timer(bool on, MPI_Comm world, PreparedPoint& point, std::function<double()> now);

}  // namespace collbench
