#include "output/plan_listing.hpp"

#include <algorithm>
#include <ostream>

#include "config/units.hpp"
#include "output/contract.hpp"
#include "output/csv.hpp"
#include "output/rows.hpp"

namespace collbench {

void print_plan_text(std::ostream& out, const Config& config, const Plan& plan, int nprocs, std::size_t begin,
                     std::size_t end) {
  out << "experiment " << config.experiment << " at " << nprocs << " processes: " << plan.size() << " points";
  if (begin != 0 || end != plan.size()) out << " (this slice: points " << begin << ".." << (end == 0 ? 0 : end - 1) << ")";
  out << ", " << plan.candidates.size() - plan.size() << " combinations skipped\n";
  out << "timing: sync " << to_string(config.timing.sync) << ", clock " << to_string(config.timing.clock) << ", " << config.timing.warmup
      << " warm-up + " << config.timing.reps << " repetitions per point, Tukey k=" << config.timing.tukey_k
      << ", validation "
      << (!config.validation ? std::string("off")
          : config.validation_max_bytes ? "on up to " + format_bytes(*config.validation_max_bytes) : std::string("on"))
      << "\n";
  std::size_t last_sweep = static_cast<std::size_t>(-1);
  for (const Candidate& c : plan.candidates) {
    const bool in_slice = c.point >= 0 && static_cast<std::size_t>(c.point) >= begin && static_cast<std::size_t>(c.point) < end;
    if (c.point >= 0 && !in_slice) continue;
    if (c.sweep != last_sweep && !c.setting.empty()) out << "setting \"" << c.setting << "\":\n";
    last_sweep = c.sweep;
    const std::string id = c.point >= 0 ? std::to_string(c.point) : "-";
    out << "  " << std::string(id.size() < 5 ? 5 - id.size() : 0, ' ') << id << "  " << collrepro::to_string(c.collective)
        << "/" << c.algorithm->info().name << "  " << c.placement << "  " << shape_text(c);
    if (!c.supported) out << "  SKIPPED: " << c.reason;
    out << "\n";
  }
}

void print_plan_csv(std::ostream& out, const Plan& plan, std::size_t begin, std::size_t end) {
  // The contract's identity columns that a plan knows, its shape columns, and the verdict.
  std::vector<std::string> columns = {"point", "setting", "family", "collective", "algorithm", "topology", "placement",
                                      "msg_bytes", "call"};
  const auto families = family_adapters();
  for (const auto& c : raw_columns())
    if (std::find(columns.begin(), columns.end(), c) == columns.end() && contract()["columns"].contains(c) &&
        std::any_of(families.begin(), families.end(), [&](const FamilyAdapter* f) {
          const auto cols = contract_shape_columns(f->name());
          return std::find(cols.begin(), cols.end(), c) != cols.end();
        }))
      columns.push_back(c);
  columns.push_back("supported");
  columns.push_back("reason");
  out << csv_line(columns);
  for (const Candidate& c : plan.candidates) {
    if (c.point >= 0 && (static_cast<std::size_t>(c.point) < begin || static_cast<std::size_t>(c.point) >= end)) continue;
    Row row(columns);
    row.set("point", c.point >= 0 ? std::to_string(c.point) : "").set("setting", c.setting);
    set_candidate(row, c);
    row.set("supported", c.supported ? "1" : "0").set("reason", c.reason);
    out << row.line();
  }
}

}  // namespace collbench
