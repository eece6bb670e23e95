#include "iso_topology.hpp"

#include "settings.hpp"

#include <algorithm>
#include <set>

namespace collrepro::pmpi {
namespace {

// Offset of `to` from `from` on a ring of n, in (-n/2, n/2]: the fewest hops.
int ring_offset(int from, int to, int n) {
  int d = ((to - from) % n + n) % n;
  return d > n / 2 ? d - n : d;
}

std::optional<IsoTopology> cartesian(MPI_Comm comm) {
  int nd = 0;
  check(PMPI_Cartdim_get(comm, &nd), "MPI_Cartdim_get");
  if (nd < 1) return std::nullopt;
  std::vector<int> dims(static_cast<std::size_t>(nd)), periods(dims.size()), coords(dims.size());
  check(PMPI_Cart_get(comm, nd, dims.data(), periods.data(), coords.data()), "MPI_Cart_get");
  for (int size : dims)
    if (size < 3) return std::nullopt;
  std::vector<iso::Offset> offsets;
  std::vector<int> position;
  std::vector<bool> discard;
  for (int j = 0; j < nd; ++j) {
    offsets.push_back(iso::axis_offset(nd, j, -1));
    offsets.push_back(iso::axis_offset(nd, j, +1));
    position.push_back(2 * j + 1);  // what goes towards -e_j arrives from +e_j
    position.push_back(2 * j);
    int below = MPI_PROC_NULL, above = MPI_PROC_NULL;
    check(PMPI_Cart_shift(comm, j, 1, &below, &above), "MPI_Cart_shift");
    discard.push_back(below == MPI_PROC_NULL);
    discard.push_back(above == MPI_PROC_NULL);
  }
  auto n = iso::Neighborhood::list(offsets);
  const bool torus = std::all_of(periods.begin(), periods.end(), [](int p) { return p != 0; });
  Comm twin;  // the torus of the same dimensions, when some are not periodic
  if (!torus) {
    const std::vector<int> all_periodic(dims.size(), 1);
    MPI_Comm t = MPI_COMM_NULL;
    check(PMPI_Cart_create(comm, nd, dims.data(), all_periodic.data(), 0, &t), "MPI_Cart_create");
    twin = Comm(t);
  }
  auto iso_comm = iso::IsoComm::attach(torus ? comm : twin.get(), n, settings().caps);
  return IsoTopology{std::move(n), dims, std::move(position), std::move(discard), std::move(iso_comm)};
}

// Every process holds the same `mine` (same length first, then the same entries).
bool same_everywhere(std::vector<int> mine, MPI_Comm comm) {
  int len[2] = {static_cast<int>(mine.size()), -static_cast<int>(mine.size())}, ext[2];
  check(PMPI_Allreduce(len, ext, 2, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (ext[0] != -ext[1]) return false;
  std::vector<int> both(mine.size() * 2);
  for (std::size_t i = 0; i < mine.size(); ++i) {
    both[i] = mine[i];
    both[mine.size() + i] = -mine[i];
  }
  std::vector<int> top(both.size());
  check(PMPI_Allreduce(both.data(), top.data(), static_cast<int>(both.size()), MPI_INT, MPI_MAX, comm),
        "MPI_Allreduce");
  for (std::size_t i = 0; i < mine.size(); ++i)
    if (top[i] != -top[mine.size() + i]) return false;
  return true;
}

std::optional<IsoTopology> dist_graph(MPI_Comm comm) {
  int indeg = 0, outdeg = 0, weighted = 0, rank = 0, size = 0;
  check(PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted), "MPI_Dist_graph_neighbors_count");
  check(PMPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check(PMPI_Comm_size(comm, &size), "MPI_Comm_size");
  std::vector<int> src(static_cast<std::size_t>(indeg) + 1), dst(static_cast<std::size_t>(outdeg) + 1);
  std::vector<int> sw(src.size()), dw(dst.size());
  check(PMPI_Dist_graph_neighbors(comm, indeg, src.data(), weighted ? sw.data() : MPI_UNWEIGHTED, outdeg, dst.data(),
                                  weighted ? dw.data() : MPI_UNWEIGHTED),
        "MPI_Dist_graph_neighbors");
  src.resize(static_cast<std::size_t>(indeg));
  dst.resize(static_cast<std::size_t>(outdeg));
  std::vector<int> mine{indeg, outdeg};
  for (int& r : src) mine.push_back(r = ring_offset(rank, r, size));
  for (int& r : dst) mine.push_back(r = ring_offset(rank, r, size));
  const auto position = pair_ring_offsets(dst, src, size);
  // Every process reaches the same verdict: the offsets are global once they agree everywhere.
  if (!same_everywhere(mine, comm) || !position) return std::nullopt;
  std::vector<iso::Offset> offsets;
  for (int d : dst) offsets.push_back({d});
  auto n = iso::Neighborhood::list(offsets);
  const int periodic = 1;
  MPI_Comm ring = MPI_COMM_NULL;
  check(PMPI_Cart_create(comm, 1, &size, &periodic, 0, &ring), "MPI_Cart_create");
  Comm owned(ring);
  auto iso_comm = iso::IsoComm::attach(owned.get(), n, settings().caps);
  return IsoTopology{std::move(n), {size}, *position, std::vector<bool>(dst.size(), false), std::move(iso_comm)};
}

}  // namespace

std::optional<std::vector<int>> pair_ring_offsets(const std::vector<int>& dest, const std::vector<int>& src, int n) {
  if (dest.size() != src.size() || dest.empty()) return std::nullopt;
  auto norm = [n](int c) { return ((c % n) + n) % n; };
  std::set<int> seen_dest, seen_src;
  for (int d : dest)
    if (!seen_dest.insert(norm(d)).second) return std::nullopt;
  for (int s : src)
    if (!seen_src.insert(norm(s)).second) return std::nullopt;
  std::vector<int> position;
  for (int d : dest) {
    const auto it = std::find_if(src.begin(), src.end(), [&](int s) { return norm(s) == norm(-d); });
    if (it == src.end()) return std::nullopt;
    position.push_back(static_cast<int>(it - src.begin()));
  }
  return position;
}

std::optional<IsoTopology> detect_isomorphic(MPI_Comm comm) {
  int kind = MPI_UNDEFINED;
  check(PMPI_Topo_test(comm, &kind), "MPI_Topo_test");
  if (kind == MPI_CART) return cartesian(comm);
  if (kind == MPI_DIST_GRAPH) return dist_graph(comm);
  return std::nullopt;
}

}  // namespace collrepro::pmpi
