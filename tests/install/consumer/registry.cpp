// Lists the installed algorithm registry: every self-registered algorithm must be linked in.
#include <collrepro/registry.hpp>
#include <cstdio>

int main() {
  const auto& registry = collrepro::Registry::global();
  for (const auto* a : registry.all())
    std::printf("%s %s\n", collrepro::to_string(a->info().collective), a->info().name.c_str());
  return registry.find(collrepro::Collective::Allgather, "fullduplex-allgather") ? 0 : 1;
}
