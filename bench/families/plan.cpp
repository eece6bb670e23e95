#include "families/plan.hpp"

#include <algorithm>
#include <map>

#include "base/errors.hpp"
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
    const FamilyAdapter& family = *family_of(c);
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
          const bool has_example = it != plan.candidates.end();
          const std::string why = has_example ? it->reason + " (e.g. " + shape_text(*it) + ")" : "";
          // What to change: the call forms where the shape is fine and the form is not, else the
          // family's shape keys of this collective and the sizes.
          std::string keys = "call";
          if (!has_example || !family.supports(*algorithms[i], *it->shape, caps)) {
            keys.clear();
            for (const std::string& k : family.sweep_keys(c)) keys += k + "/";
            keys += "sizes";
          }
          throw config_error(sweep.algorithms.at(static_cast<std::size_t>(
                                 std::find(sweep.algorithms.values.begin(), sweep.algorithms.values.end(),
                                           algorithms[i]->info().name) - sweep.algorithms.values.begin())),
                             "= " + quote(algorithms[i]->info().name) + " supports none of the " +
                                 std::to_string(shapes.size()) + " shapes at " + std::to_string(nprocs) +
                                 " processes: " + why + " (remove it or change " + keys + ")");
        }
  }
  if (plan.points.empty())
    throw ConfigError("config error: no algorithm supports any point at " + std::to_string(nprocs) +
                      " processes (see collbench CONFIG --dry-run for the reasons)");
  return plan;
}

std::string shape_text(const Candidate& c) {
  return c.shape->describe() + " size=" + format_bytes(c.shape->msg_bytes()) +
         (c.call == collrepro::CallForm::Blocking ? "" : " call=" + std::string(collrepro::to_string(c.call)));
}


std::pair<std::size_t, std::size_t> slice_range(std::size_t n, int s, int t) {
  const auto S = static_cast<std::size_t>(s), T = static_cast<std::size_t>(t);
  const std::size_t base = n / T, extra = n % T;
  const std::size_t begin = S * base + std::min(S, extra);
  return {begin, begin + base + (S < extra ? 1 : 0)};
}

}  // namespace collbench
