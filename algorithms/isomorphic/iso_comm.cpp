// IsoComm: the paper's isocomm (seed 004 §2, Listing 1, Iso_neighborhood_create): a private
// duplicate of a periodic Cartesian communicator with the neighbourhood attached and the
// s target and source ranks precomputed. Ranks are translated only with MPI_Cart_rank on the
// (possibly reordered) Cartesian communicator; coordinates are reduced modulo the dimension
// sizes first, so offsets may exceed the torus (|c| >= p_j) and p_j = 1 or 2 work.
#include <numeric>
#include <stdexcept>

#include "collrepro/capabilities.hpp"
#include "collrepro/isomorphic.hpp"

namespace collrepro::iso {
namespace {

std::string dims_text(const std::vector<int>& dims) {
  std::string s;
  for (std::size_t j = 0; j < dims.size(); ++j) s += (j ? "x" : "") + std::to_string(dims[j]);
  return s;
}

}  // namespace

IsoComm IsoComm::create(MPI_Comm parent, const Neighborhood& n, const Capabilities& caps, std::vector<int> dims) {
  const int d = n.dims();
  if (d < 1) throw std::invalid_argument("IsoComm: empty neighbourhood");
  if (dims.empty()) dims.assign(static_cast<std::size_t>(d), 0);
  if (static_cast<int>(dims.size()) != d)
    throw std::invalid_argument("IsoComm: dims " + dims_text(dims) + " do not have the neighbourhood's " +
                                std::to_string(d) + " dimensions");
  int p = 0;
  check(MPI_Comm_size(parent, &p), "MPI_Comm_size");
  int fixed = 1;
  for (int x : dims) fixed *= x == 0 ? 1 : x;
  if (fixed <= 0 || p % fixed != 0)
    throw std::invalid_argument("IsoComm: dims " + dims_text(dims) + " do not fit " + std::to_string(p) + " processes");
  check(MPI_Dims_create(p, d, dims.data()), "MPI_Dims_create");
  if (std::accumulate(dims.begin(), dims.end(), 1, std::multiplies<>()) != p)
    throw std::invalid_argument("IsoComm: dims " + dims_text(dims) + " do not multiply to " + std::to_string(p));
  const std::vector<int> periods(dims.size(), 1);
  MPI_Comm cart = MPI_COMM_NULL;
  check(MPI_Cart_create(parent, d, dims.data(), periods.data(), /*reorder=*/1, &cart), "MPI_Cart_create");
  Comm owned(cart);
  return attach(owned.get(), n, caps);
}

IsoComm IsoComm::attach(MPI_Comm cart, const Neighborhood& n, const Capabilities& caps) {
  int d = 0;
  // SimGrid SMPI aborts MPI_Topo_test ("Not yet implemented"); there, MPI_Cartdim_get below
  // fails on a communicator that is not Cartesian.
  if (caps.topo_test) {
    int topology = MPI_UNDEFINED;
    check(MPI_Topo_test(cart, &topology), "MPI_Topo_test");
    if (topology != MPI_CART) throw std::invalid_argument("IsoComm: the communicator is not Cartesian");
  }
  check(MPI_Cartdim_get(cart, &d), "MPI_Cartdim_get");
  if (d != n.dims())
    throw std::invalid_argument("IsoComm: a " + std::to_string(n.dims()) + "-dimensional neighbourhood on a " +
                                std::to_string(d) + "-dimensional Cartesian communicator");
  IsoComm c;
  c.neighborhood_ = n;
  c.caps_ = caps;
  c.dims_.resize(static_cast<std::size_t>(d));
  c.coords_.resize(static_cast<std::size_t>(d));
  std::vector<int> periods(static_cast<std::size_t>(d));
  check(MPI_Cart_get(cart, d, c.dims_.data(), periods.data(), c.coords_.data()), "MPI_Cart_get");
  for (int per : periods)
    if (!per) throw std::invalid_argument("IsoComm: every dimension must be periodic (a torus)");
  c.comm_ = Comm::dup(cart);
  c.rank_ = c.comm_.rank();
  c.size_ = c.comm_.size();
  for (const Offset& off : n.offsets()) {
    c.targets_.push_back(c.rank_at(off));
    Offset back = off;
    for (int& x : back) x = -x;
    c.sources_.push_back(c.rank_at(back));
  }
  return c;
}

int IsoComm::rank_at(const Offset& offset) const {
  std::vector<int> at(dims_.size());
  for (std::size_t j = 0; j < dims_.size(); ++j)
    at[j] = static_cast<int>(((static_cast<long long>(coords_[j]) + offset[j]) % dims_[j] + dims_[j]) % dims_[j]);
  int r = MPI_PROC_NULL;
  check(MPI_Cart_rank(comm_.get(), at.data(), &r), "MPI_Cart_rank");
  return r;
}

}  // namespace collrepro::iso
