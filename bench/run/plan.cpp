#include "run/plan.hpp"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>

#include "output/contract.hpp"
#include "output/csv.hpp"
#include "run/errors.hpp"
#include "config/units.hpp"

namespace collbench {

namespace {

using collrepro::Algorithm;
using collrepro::Collective;

std::vector<const Algorithm*> select_algorithms(const Sweep& sweep, const FamilyAdapter& family, Collective c) {
  const auto available = family.algorithms(c);
  const auto& wanted = sweep.algorithms.values;
  if (wanted.size() == 1 && wanted[0] == "all") return available;
  std::vector<const Algorithm*> out;
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    const std::string field = sweep.algorithms.at(i);
    if (wanted[i] == "all") throw config_error(field, "= \"all\" cannot be combined with names (use algorithms: all alone)");
    auto it = std::find_if(available.begin(), available.end(), [&](const Algorithm* a) { return a->info().name == wanted[i]; });
    if (it == available.end()) {
      std::string names;
      for (const auto* a : available) names += (names.empty() ? "" : ", ") + a->info().name;
      throw config_error(field, "= " + quote(wanted[i]) + " is not a registered " + collrepro::to_string(c) +
                                    " algorithm (available: " + names + "; see collbench --list-algorithms)");
    }
    if (std::find(out.begin(), out.end(), *it) == out.end()) out.push_back(*it);
  }
  return out;
}

void check_placements(const Sweep& sweep, const FamilyAdapter& family) {
  const auto allowed = family.placements();
  const auto& v = sweep.placements.values;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (std::find(allowed.begin(), allowed.end(), v[i]) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw config_error(sweep.placements.at(i),
                         "= " + quote(v[i]) + " is not a placement of collective " + collrepro::to_string(sweep.collective) +
                             " (use " + list + ")");
    }
}

std::string shape_text(const Candidate& c) {
  return c.shape->describe() + " size=" + format_bytes(c.shape->msg_bytes()) +
         (c.call == collrepro::CallForm::Blocking ? "" : " call=" + std::string(collrepro::to_string(c.call)));
}

}  // namespace

std::vector<std::vector<int>> Plan::points_per_sweep(std::size_t sweeps) const {
  std::vector<std::vector<int>> out(sweeps);
  for (std::size_t id = 0; id < points.size(); ++id) out[point(id).sweep].push_back(static_cast<int>(id));
  return out;
}

Plan make_plan(const Config& config, int nprocs, const collrepro::Capabilities& caps) {
  Plan plan;
  for (std::size_t si = 0; si < config.sweeps.size(); ++si) {
    const Sweep& sweep = config.sweeps[si];
    const Collective c = sweep.collective;
    const FamilyAdapter& family = *sweep.family;
    check_placements(sweep, family);
    const auto algorithms = select_algorithms(sweep, family, c);
    const auto shapes = family.shapes(sweep, nprocs);
    std::map<const Algorithm*, std::size_t> supported_count;
    for (const std::string& placement : sweep.placements.values)
      for (const auto& shape : shapes)
        for (const Algorithm* a : algorithms) {
          const collrepro::Support shape_ok = family.supports(*a, *shape, caps);
          for (const collrepro::CallForm call : sweep.calls) {
            Candidate cand;
            cand.sweep = si;
            cand.setting = sweep.name;
            cand.collective = c;
            cand.algorithm = a;
            cand.call = call;
            cand.family = &family;
            cand.shape = shape;
            cand.placement = placement;
            const collrepro::Support s = shape_ok ? a->supports_call(call, caps) : shape_ok;
            cand.supported = s.ok;
            cand.reason = s.reason;
            if (s.ok) {
              cand.cost = family.cost(*a, *shape);
              cand.bound = family.bound(*a, *shape);
              cand.point = static_cast<int>(plan.points.size());
              plan.points.push_back(plan.candidates.size());
              ++supported_count[a];
            }
            plan.candidates.push_back(std::move(cand));
          }
        }
    const bool explicit_list = !(sweep.algorithms.values.size() == 1 && sweep.algorithms.values[0] == "all");
    if (explicit_list)
      for (std::size_t i = 0; i < algorithms.size(); ++i)
        if (!supported_count[algorithms[i]]) {
          const auto it = std::find_if(plan.candidates.begin(), plan.candidates.end(), [&](const Candidate& x) {
            return x.sweep == si && x.algorithm == algorithms[i];
          });
          const std::string why = it != plan.candidates.end() ? it->reason + " (e.g. " + shape_text(*it) + ")" : "";
          throw config_error(sweep.algorithms.at(static_cast<std::size_t>(
                                 std::find(sweep.algorithms.values.begin(), sweep.algorithms.values.end(),
                                           algorithms[i]->info().name) - sweep.algorithms.values.begin())),
                             "= " + quote(algorithms[i]->info().name) + " supports none of the " +
                                 std::to_string(shapes.size()) + " shapes at " + std::to_string(nprocs) +
                                 " processes: " + why + " (remove it or change groups/blocks/sizes)");
        }
  }
  if (plan.points.empty())
    throw ConfigError("config error: no algorithm supports any point at " + std::to_string(nprocs) +
                      " processes (see collbench CONFIG --dry-run for the reasons)");
  return plan;
}

std::pair<std::size_t, std::size_t> slice_range(std::size_t n, int s, int t) {
  const auto S = static_cast<std::size_t>(s), T = static_cast<std::size_t>(t);
  const std::size_t base = n / T, extra = n % T;
  const std::size_t begin = S * base + std::min(S, extra);
  return {begin, begin + base + (S < extra ? 1 : 0)};
}

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
  for (const auto& c : raw_columns())
    if (std::find(columns.begin(), columns.end(), c) == columns.end() && contract()["columns"].contains(c) &&
        std::any_of(family_adapters().begin(), family_adapters().end(), [&](const FamilyAdapter* f) {
          const auto cols = f->shape_columns();
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
    row.set("family", c.family->name()).set("collective", collrepro::to_string(c.collective));
    row.set("algorithm", c.algorithm->info().name).set("topology", c.algorithm->info().topology);
    row.set("placement", c.placement).set("msg_bytes", std::to_string(c.shape->msg_bytes()));
    row.set("call", collrepro::to_string(c.call));
    for (const auto& [column, value] : c.shape->columns()) row.set(column, value);
    row.set("supported", c.supported ? "1" : "0").set("reason", c.reason);
    out << row.line();
  }
}

}  // namespace collbench
