#include "timing/topology.hpp"

#include <hwloc.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <stdexcept>

namespace collbench {

namespace {

using collrepro::check;
using collrepro::Comm;

class Topology {
 public:
  Topology() {
    if (hwloc_topology_init(&topo_) != 0) throw std::runtime_error("hwloc_topology_init failed");
    if (hwloc_topology_load(topo_) != 0) {
      hwloc_topology_destroy(topo_);
      throw std::runtime_error("hwloc_topology_load failed");
    }
  }
  ~Topology() { hwloc_topology_destroy(topo_); }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  hwloc_topology_t get() const { return topo_; }

 private:
  hwloc_topology_t topo_ = nullptr;
};

struct BitmapFree {
  void operator()(hwloc_bitmap_s* b) const { hwloc_bitmap_free(b); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapFree>;

Bitmap current_binding(const Topology& t) {
  Bitmap set(hwloc_bitmap_alloc());
  if (hwloc_get_cpubind(t.get(), set.get(), HWLOC_CPUBIND_PROCESS) != 0)
    hwloc_bitmap_copy(set.get(), hwloc_topology_get_allowed_cpuset(t.get()));
  return set;
}

std::string bitmap_list(hwloc_const_bitmap_t b) {
  char* text = nullptr;
  hwloc_bitmap_list_asprintf(&text, b);
  std::string s = text ? text : "";
  std::free(text);
  return s;
}

// Logical indexes of the objects of `type` intersecting `set`.
std::vector<int> objects_touching(const Topology& t, hwloc_obj_type_t type, hwloc_const_bitmap_t set) {
  std::vector<int> out;
  const int n = hwloc_get_nbobjs_by_type(t.get(), type);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t o = hwloc_get_obj_by_type(t.get(), type, static_cast<unsigned>(i));
    if (o && o->cpuset && hwloc_bitmap_intersects(o->cpuset, set)) out.push_back(static_cast<int>(o->logical_index));
  }
  return out;
}

// Logical index of the only object of `type` intersecting `set`, or -1 when several (or none).
int only_object(const Topology& t, hwloc_obj_type_t type, hwloc_const_bitmap_t set) {
  const auto found = objects_touching(t, type, set);
  return found.size() == 1 ? found.front() : -1;
}

std::string hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  return "unknown";
}

// Binds to core (node_rank mod cores) if the process may run everywhere; returns a note.
std::string bind_to_core(const Topology& t, int node_rank) {
  Bitmap set = current_binding(t);
  if (!hwloc_bitmap_isincluded(hwloc_topology_get_allowed_cpuset(t.get()), set.get()))
    return "the launcher already bound the ranks; binding: core left them as they are";
  const int cores = hwloc_get_nbobjs_by_type(t.get(), HWLOC_OBJ_CORE);
  if (cores <= 0) return "hwloc found no cores; ranks not bound";
  hwloc_obj_t core = hwloc_get_obj_by_type(t.get(), HWLOC_OBJ_CORE, static_cast<unsigned>(node_rank % cores));
  if (hwloc_set_cpubind(t.get(), core->cpuset, HWLOC_CPUBIND_PROCESS) != 0)
    return "hwloc_set_cpubind failed; ranks not bound";
  return "ranks bound to cores by collbench (node rank modulo " + std::to_string(cores) + " cores)";
}

// Gathers one string per rank to rank 0.
std::vector<std::string> gather_strings(const std::string& mine, MPI_Comm world, int size) {
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  check(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, world), "MPI_Gather");
  int total = 0;
  for (int i = 0; i < size; ++i) displs[static_cast<std::size_t>(i)] = std::exchange(total, total + lens[static_cast<std::size_t>(i)]);
  std::string all(static_cast<std::size_t>(total), '\0');
  check(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, world), "MPI_Gatherv");
  std::vector<std::string> out;
  for (int i = 0; i < size; ++i)
    out.push_back(all.substr(static_cast<std::size_t>(displs[static_cast<std::size_t>(i)]),
                             static_cast<std::size_t>(lens[static_cast<std::size_t>(i)])));
  return out;
}

}  // namespace

Machine discover_machine(MPI_Comm world, const std::string& binding) {
  Machine m;
  check(MPI_Comm_rank(world, &m.world_rank), "MPI_Comm_rank");
  check(MPI_Comm_size(world, &m.world_size), "MPI_Comm_size");
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, m.world_rank, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  m.node = Comm(node);
  m.node_rank = m.node.rank();
  m.node_size = m.node.size();
  m.leaders = Comm::split(world, m.node_rank == 0 ? 0 : MPI_UNDEFINED, m.world_rank);
  m.node_index = m.leaders ? m.leaders.rank() : 0;
  m.nodes = m.leaders ? m.leaders.size() : 0;
  check(MPI_Bcast(&m.node_index, 1, MPI_INT, 0, m.node.get()), "MPI_Bcast");
  check(MPI_Bcast(&m.nodes, 1, MPI_INT, 0, world), "MPI_Bcast");
  check(MPI_Allreduce(&m.node_size, &m.ppn, 1, MPI_INT, MPI_MAX, world), "MPI_Allreduce");
  m.host = hostname();
  m.cpu_model = cpu_model();

  Topology topo;
  std::string note;
  if (binding == "core") note = bind_to_core(topo, m.node_rank);
  Bitmap set = current_binding(topo);
  const int core = only_object(topo, HWLOC_OBJ_CORE, set.get());
  const int package = only_object(topo, HWLOC_OBJ_PACKAGE, set.get());
  const int numa = only_object(topo, HWLOC_OBJ_NUMANODE, set.get());

  int mine[2] = {m.node_index, package};
  std::vector<int> all(2 * static_cast<std::size_t>(m.world_size));
  check(MPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, world), "MPI_Allgather");
  for (int r = 0; r < m.world_size; ++r)
    m.localities.push_back({all[2 * static_cast<std::size_t>(r)], all[2 * static_cast<std::size_t>(r) + 1]});

  const nlohmann::json record = {{"host", m.host},       {"cpuset", bitmap_list(set.get())},
                                 {"core", core},         {"cores", objects_touching(topo, HWLOC_OBJ_CORE, set.get())},
                                 {"package", package},   {"numa", numa},
                                 {"node", m.node_index}};
  const auto records = gather_strings(record.dump(), world, m.world_size);
  const auto notes = gather_strings(note, world, m.world_size);
  if (m.world_rank == 0) {
    m.bindings = nlohmann::json::array();
    std::vector<RankCores> places;
    for (int r = 0; r < m.world_size; ++r) {
      nlohmann::json b = nlohmann::json::parse(records[static_cast<std::size_t>(r)]);
      b["rank"] = r;
      places.push_back({b["node"].get<int>(), b["host"].get<std::string>(), b["cores"].get<std::vector<int>>()});
      m.bindings.push_back(b);
    }
    m.oversubscription = assess_oversubscription(places);
    for (const auto& n : notes)
      if (!n.empty() && (m.notes.empty() || m.notes.back() != n)) m.notes.push_back(n);
    m.hwloc = {{"packages", hwloc_get_nbobjs_by_type(topo.get(), HWLOC_OBJ_PACKAGE)},
               {"cores", hwloc_get_nbobjs_by_type(topo.get(), HWLOC_OBJ_CORE)},
               {"pus", hwloc_get_nbobjs_by_type(topo.get(), HWLOC_OBJ_PU)},
               {"numa", hwloc_get_nbobjs_by_type(topo.get(), HWLOC_OBJ_NUMANODE)},
               {"hwloc_api_version", HWLOC_API_VERSION}};
  }
  return m;
}

}  // namespace collbench
