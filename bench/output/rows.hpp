// The CSV rows collbench writes, composed in one place: the result files' rows of a point (raw,
// summary, phases; their columns are the contract's, contract.hpp) and the columns a candidate
// of the plan fills in any table (set_candidate: the dry-run listing's too, plan_listing.hpp).
// Values are bound to columns by name (Row), so the contract alone fixes their order.
#pragma once

#include <string>
#include <vector>

#include "config/enums.hpp"
#include "config/arrival.hpp"
#include "families/plan.hpp"
#include "output/contract.hpp"
#include "output/run_info.hpp"
#include "timing/measure.hpp"
#include "timing/stats.hpp"

namespace collbench {

// What every row of one launch says about the run (the identity columns besides the point's).
struct Identity {
  std::string experiment;
  int launch = 0;
  MpiLibrary mpi;
  int nodes = 1, nprocs = 1, ppn = 1;
  SyncMethod sync = SyncMethod::Barrier;
  ClockKind clock = ClockKind::MpiWtime;
  std::vector<Arrival> arrivals;  // per sweep (setting)
};

// The columns a candidate of the plan knows: placement, family, collective, algorithm,
// topology, msg_bytes, call and its family's shape columns.
void set_candidate(Row& row, const Candidate& c);

// The raw rows of a measured point, one per repetition.
std::vector<std::string> raw_lines(const Identity& id, const Candidate& c, int point, const std::string& utc,
                                   const Measurement& m);
// The summary row of a measured point. init_s: the persistent call's init
// (PreparedPoint::init_s), NaN for the other forms.
std::string summary_line(const Identity& id, const Candidate& c, int point, const Summary& s, const Measurement& m,
                         double init_s);
// The phases rows of a point (timing.phases): per repetition, one row per phase.
std::vector<std::string> phases_lines(const Identity& id, const Candidate& c, int point, const Measurement& m);

}  // namespace collbench
