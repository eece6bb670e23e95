#include "family.hpp"

#include <array>

#include "errors.hpp"

namespace collbench {

std::span<const FamilyAdapter* const> family_adapters() {
  static const auto list = [] {
    std::vector<const FamilyAdapter*> v{&inter_family()};
    if (const FamilyAdapter* iso = iso_family()) v.push_back(iso);
    return v;
  }();
  return list;
}

const FamilyAdapter& adapter_for(collrepro::Collective c, const std::string& field) {
  for (const FamilyAdapter* f : family_adapters())
    if (f->handles(c)) return *f;
  throw config_error(field, "= \"" + std::string(collrepro::to_string(c)) +
                                "\" has no algorithm family in this build");
}

}  // namespace collbench
