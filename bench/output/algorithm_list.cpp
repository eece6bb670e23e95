#include "output/algorithm_list.hpp"

#include <ostream>

#include <nlohmann/json.hpp>

#include "collrepro/intergroup.hpp"
#include "collrepro/registry.hpp"
#include "families/family.hpp"
#include "output/csv.hpp"

namespace collbench {
namespace {

std::string family_name(collrepro::Collective c) {
  for (const FamilyAdapter* f : family_adapters())
    if (f->handles(c)) return f->name();
  return "-";
}

// Inter-group algorithms: which data directions they carry, probed on a 4 x 4 shape with data
// in one direction (half) and in both (full). Other families have no duplex: null.
nlohmann::json duplex(const collrepro::Algorithm& a) {
  const auto* inter = dynamic_cast<const collrepro::inter::InterAlgorithm*>(&a);
  if (!inter) return nullptr;
  using collrepro::inter::Shape;
  const auto mode = collrepro::PairMode::Intercomm;
  const bool half = inter->supports(Shape::uniform(4, 4, 64, 0), mode).ok;
  const bool full = inter->supports(Shape::uniform(4, 4, 64, 64), mode).ok;
  return half && full ? "both" : half ? "half" : full ? "full" : "none";
}

// The call forms the algorithm offers (Algorithm::calls(); the library may lack a native one at
// run time: the plan then skips it with the probe's reason).
nlohmann::json calls(const collrepro::Algorithm& a) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto form : a.calls()) out.push_back(collrepro::to_string(form));
  return out;
}

// A mock-up's performance guideline: {"natives": [...], "guideline": text}; null for the others.
nlohmann::json mock_up_of(const collrepro::AlgorithmInfo& i) {
  if (i.mock_up_of.natives.empty()) return nullptr;
  return {{"natives", i.mock_up_of.natives}, {"guideline", i.mock_up_of.guideline}};
}

}  // namespace

void list_algorithms(std::ostream& out, const std::string& format) {
  const auto& registry = collrepro::Registry::global();
  if (format == "json") {
    nlohmann::json list = nlohmann::json::array();
    for (const auto* a : registry.all()) {
      const auto& i = a->info();
      list.push_back({{"name", i.name},
                      {"collective", collrepro::to_string(i.collective)},
                      {"family", family_name(i.collective)},
                      {"kind", collrepro::to_string(i.kind)},
                      {"topology", collrepro::to_string(i.topology)},
                      {"duplex", duplex(*a)},
                      {"source", i.source},
                      {"cost", i.cost},
                      {"file", registry.source_file(*a)},
                      {"doc", "docs/algorithms/" + i.name + ".md"},
                      {"calls", calls(*a)},
                      {"mock_up_of", mock_up_of(i)},
                      // Phases are a runner's (known once the call is prepared, under MPI).
                      {"phases", nullptr}});
    }
    out << nlohmann::json{{"algorithms", list}}.dump(1) << "\n";
    return;
  }
  out << csv_line({"collective", "algorithm", "topology", "kind", "family", "source", "file", "doc"});
  for (const auto* a : registry.all()) {
    const auto& i = a->info();
    out << csv_line({collrepro::to_string(i.collective), i.name, collrepro::to_string(i.topology), collrepro::to_string(i.kind),
                     family_name(i.collective), i.source, registry.source_file(*a), "docs/algorithms/" + i.name + ".md"});
  }
}

}  // namespace collbench
