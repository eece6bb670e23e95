// collbench --list-algorithms: every registered algorithm, without MPI, as CSV. The first six
// columns are the original ones (scripts that read them keep working); then the source file
// that registers the algorithm (relative to the repository) and its documentation page.
#include <ostream>

#include "collrepro/registry.hpp"
#include "output/csv.hpp"
#include "run/driver.hpp"
#include "families/family.hpp"

namespace collbench {

void list_algorithms(std::ostream& out) {
  const auto& registry = collrepro::Registry::global();
  out << csv_line({"collective", "algorithm", "topology", "kind", "family", "source", "file", "doc"});
  for (const auto* a : registry.all()) {
    const auto& i = a->info();
    std::string family = "-";
    for (const FamilyAdapter* f : family_adapters())
      if (f->handles(i.collective)) family = f->name();
    out << csv_line({collrepro::to_string(i.collective), i.name, i.topology, collrepro::to_string(i.kind), family,
                     i.source, registry.source_file(*a), "docs/algorithms/" + i.name + ".md"});
  }
}

}  // namespace collbench
