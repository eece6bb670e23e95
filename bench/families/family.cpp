#include "families/family.hpp"

#include <algorithm>

#include "collrepro/mpi.hpp"

namespace collbench {

namespace {

std::vector<const FamilyAdapter*>& registered_families() {
  static std::vector<const FamilyAdapter*> list;
  return list;
}

}  // namespace

FamilyRegistration::FamilyRegistration(const FamilyAdapter& family) {
  auto& list = registered_families();
  const auto at = std::lower_bound(list.begin(), list.end(), &family,
                                   [](const FamilyAdapter* a, const FamilyAdapter* b) { return a->name() < b->name(); });
  list.insert(at, &family);
  add_sweep_family(family);
}

void RunnerPoint::check_mpi(int rc, const char* what) { collrepro::check(rc, what); }

std::span<const FamilyAdapter* const> family_adapters() { return registered_families(); }

const FamilyAdapter* family_of(collrepro::Collective c) {
  for (const FamilyAdapter* f : family_adapters())
    if (f->handles(c)) return f;
  return nullptr;
}

}  // namespace collbench
