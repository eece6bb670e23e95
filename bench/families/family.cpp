#include "families/family.hpp"

namespace collbench {

std::span<const FamilyAdapter* const> family_adapters() {
  // The one registration line per family.
  static const std::vector<const FamilyAdapter*> list = {&inter_family(), &iso_family(), &intra_family()};
  return list;
}

const FamilyAdapter* family_of(collrepro::Collective c) {
  for (const FamilyAdapter* f : family_adapters())
    if (f->handles(c)) return f;
  return nullptr;
}

}  // namespace collbench
