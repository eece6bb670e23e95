// Prints, as one JSON object, every value collbench can write into an enumerated column or meta
// key: {"<enum set>": [values]}. Each C++ enum is enumerated whole, and the values that are
// strings at run time (the families' names and placements, the registry's collectives,
// topologies and kinds, the MPI library names) are collected from where the writer takes
// them. tests/driver/check_contract_values.py runs every value through the Python contract
// (collrepro.contract, the loader's validation): a value outside the contract fails there.
#include <iostream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "collrepro/registry.hpp"
#include "config/distribution.hpp"
#include "config/enums.hpp"
#include "families/family.hpp"
#include "output/run_info.hpp"
#include "timing/arrival.hpp"

using namespace collbench;

namespace {

template <class E>
void every(nlohmann::json& out) {
  for (const E value : collrepro::contract::all<E>()) out[collrepro::contract::Names<E>::set].push_back(to_string(value));
}

}  // namespace

int main() {
  nlohmann::json out = nlohmann::json::object();
  every<SyncMethod>(out);
  every<ClockKind>(out);
  every<ClockSyncKind>(out);
  every<Resync>(out);
  every<Binding>(out);
  every<ArrivalPattern>(out);
  every<collrepro::contract::PairMode>(out);  // the inter-group sweep key pair_mode, written as its column
  // The call forms the algorithms offer (the writer's call column is one of them).
  std::set<std::string> calls;
  for (const collrepro::Algorithm* a : collrepro::Registry::global().all())
    for (const auto form : a->calls()) calls.insert(collrepro::to_string(form));
  out["call"] = calls;
  every<collrepro::contract::BlockRule>(out);
  for (const auto kind : collrepro::contract::all<Distribution::Kind>()) {
    Distribution d;
    d.kind = kind;
    out["distribution"].push_back(d.name());
  }
  std::set<std::string> placements;
  for (const FamilyAdapter* f : family_adapters()) {
    out["family"].push_back(f->name());
    for (const auto& p : f->placements()) placements.insert(p);
  }
  out["placement"] = placements;
  std::set<std::string> collectives, topologies, kinds;
  for (const collrepro::Collective c : collrepro::all_collectives()) collectives.insert(collrepro::to_string(c));
  for (const collrepro::Algorithm* a : collrepro::Registry::global().all()) {
    collectives.insert(collrepro::to_string(a->info().collective));
    topologies.insert(collrepro::to_string(a->info().topology));
    kinds.insert(collrepro::to_string(a->info().kind));
  }
  out["collective"] = collectives;
  out["topology"] = topologies;
  out["kind"] = kinds;
  std::set<std::string> impls;
  for (const char* library : {"Open MPI v4.1.4, package: Debian OpenMPI", "MPICH Version:      4.0.2",
                              "SMPI Version 3.32. Copyright The SimGrid Team", "Intel(R) MPI Library 2021.9",
                              "MVAPICH2 Version      :	2.3.7", "Some MPI 1.0"})
    impls.insert(parse_mpi_library(library).impl);
  out["mpi_impl"] = impls;
  std::cout << out.dump(1) << "\n";
  return 0;
}
