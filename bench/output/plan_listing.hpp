// The dry-run listing of a plan (collbench --dry-run): every point with its id and every skipped
// (algorithm, shape) combination with the algorithm's reason, as text or as CSV (`point,
// setting, family, collective, algorithm, topology, placement, msg_bytes, call`, the families'
// shape columns, `supported, reason`; the row's columns composed as the result files' are,
// rows.hpp). Only the points of [begin, end) are listed; skipped combinations always are.
#pragma once

#include <cstddef>
#include <iosfwd>

#include "config/config.hpp"
#include "families/plan.hpp"

namespace collbench {

void print_plan_text(std::ostream& out, const Config& config, const Plan& plan, int nprocs, std::size_t begin,
                     std::size_t end);
void print_plan_csv(std::ostream& out, const Plan& plan, std::size_t begin, std::size_t end);

}  // namespace collbench
