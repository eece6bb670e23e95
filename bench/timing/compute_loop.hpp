// The compute of the overlap measurement (measure.hpp, Measurer::overlap): arithmetic with no
// memory traffic, no system call and no MPI call, so that a nonblocking call's progress during
// it comes from the library or the network, never from this loop. It runs until the clock says
// the asked time has passed (read every few hundred iterations), not for a calibrated number of
// iterations: a rank the scheduler takes off its core still ends its compute on time, so on a
// loaded machine the ranks do not drift apart (a rank waiting for a partner still computing
// would count that wait as exposed communication). What a run took is measured by the caller.
#pragma once

#include "timing/clock.hpp"

namespace collbench {

// Busy with arithmetic for `seconds` of `clock` (at least one batch of iterations).
void compute_for(const Clock& clock, double seconds);

}  // namespace collbench
