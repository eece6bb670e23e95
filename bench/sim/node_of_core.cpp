// Which ranks share a node, on platforms whose hosts are cores (simulation variant only; linked
// into collbench with GNU ld --wrap=MPI_Comm_split_type, see bench/sim/README.md).
//
// SMPI answers MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) by host: ranks on one host share a
// node. On the node-memory platforms (python/collrepro/sim/platforms/node_memory.py, cori-memory)
// every host is one core, and a node is the <cluster> of its cores: the top zone says so with the
// property collrepro/hosts-are-cores="yes", and each node's zone is named n<index>. There the
// split goes by node, so that collbench's topology (the metadata's nodes and processes per node,
// the CSV's nodes and ppn) describes the simulated machine and not SimGrid's hosts. SimGrid's own
// collectives are not affected (they never call this wrapper). Every other platform keeps SMPI's
// answer.
#include <smpi/smpi.h>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <cstdlib>
#include <cstring>

extern "C" {
int __real_MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm);
int __wrap_MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm);
}

namespace {

// The node index of the calling rank's host where the platform marks hosts as cores, else -1.
int node_of_core() {
  const simgrid::s4u::NetZone* zone = simgrid::s4u::Host::current()->get_englobing_zone();
  // A host of the root zone has no node zone above it (SimGrid 3.32's get_parent() of the root
  // does not return null: it must not be asked; the emulated cluster's platforms are such).
  if (zone == nullptr || zone == simgrid::s4u::Engine::get_instance()->get_netzone_root()) return -1;
  const simgrid::s4u::NetZone* top = zone->get_parent();
  const char* mark = top == nullptr ? nullptr : top->get_property("collrepro/hosts-are-cores");
  if (mark == nullptr || std::strcmp(mark, "yes") != 0) return -1;
  const char* name = zone->get_cname();  // "n<index>"
  char* end = nullptr;
  const long node = name[0] == 'n' ? std::strtol(name + 1, &end, 10) : -1;
  return (end != nullptr && *end == '\0' && node >= 0 && node < 1L << 30) ? static_cast<int>(node) : -1;
}

}  // namespace

int __wrap_MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  const int node = split_type == MPI_COMM_TYPE_SHARED ? node_of_core() : -1;
  if (node < 0) return __real_MPI_Comm_split_type(comm, split_type, key, info, newcomm);
  return MPI_Comm_split(comm, node, key, newcomm);
}
