// The isomorphic family's common pieces: argument layouts and checks, supports() and the
// family-wide lower bound (see collrepro/isomorphic.hpp).
#include <algorithm>
#include <set>
#include <stdexcept>

#include "collrepro/isomorphic.hpp"

namespace collrepro::iso {
namespace {

std::vector<std::size_t> running_sum(const std::vector<std::size_t>& counts) {
  std::vector<std::size_t> displs;
  std::size_t at = 0;
  for (std::size_t c : counts) displs.push_back(std::exchange(at, at + c));
  return displs;
}

std::size_t extent(const std::vector<std::size_t>& counts, const std::vector<std::size_t>& displs) {
  std::size_t e = 0;
  for (std::size_t i = 0; i < counts.size() && i < displs.size(); ++i) e = std::max(e, displs[i] + counts[i]);
  return e;
}

bool all_equal(const std::vector<std::size_t>& v, std::size_t m) {
  return std::all_of(v.begin(), v.end(), [m](std::size_t x) { return x == m; });
}

}  // namespace

Args Args::contiguous(Collective c, const Shape& shape) {
  Args a;
  a.recv_counts = shape.block_bytes();
  a.recv_displs = running_sum(a.recv_counts);
  if (c == Collective::NeighborAllgather) {
    a.send_counts = {a.recv_counts.empty() ? 0 : a.recv_counts.front()};
    a.send_displs = {0};
  } else {
    a.send_counts = a.recv_counts;
    a.send_displs = a.recv_displs;
  }
  return a;
}

std::size_t Args::send_extent() const { return extent(send_counts, send_displs); }
std::size_t Args::recv_extent() const { return extent(recv_counts, recv_displs); }

bool Args::regular(std::size_t& m) const {
  m = recv_counts.empty() ? 0 : recv_counts.front();
  if (!all_equal(recv_counts, m) || !all_equal(send_counts, m)) return false;
  for (std::size_t i = 0; i < recv_displs.size(); ++i)
    if (recv_displs[i] != i * m) return false;
  for (std::size_t i = 0; i < send_displs.size(); ++i)
    if (send_displs[i] != i * m) return false;
  return true;
}

void Args::validate(Collective c, std::size_t s) const {
  const std::string what = std::string(to_string(c)) + " arguments: ";
  const std::size_t sends = c == Collective::NeighborAllgather ? 1 : s;
  if (send_counts.size() != sends || send_displs.size() != sends || recv_counts.size() != s || recv_displs.size() != s)
    throw std::invalid_argument(what + "need " + std::to_string(sends) + " send and " + std::to_string(s) +
                                " receive counts and displacements");
  for (std::size_t i = 0; i < s; ++i) {
    const std::size_t expect = send_counts[c == Collective::NeighborAllgather ? 0 : i];
    if (recv_counts[i] != expect)
      throw std::invalid_argument(what + "receive block " + std::to_string(i) + " has " +
                                  std::to_string(recv_counts[i]) + " bytes, its send block " + std::to_string(expect));
  }
  if (c != Collective::NeighborAlltoallw && s > 0 && !all_equal(recv_counts, recv_counts.front()))
    throw std::invalid_argument(what + "blocks of different sizes need neighbor-alltoallw");
  if ((send_extent() > 0 && !send) || (recv_extent() > 0 && !recv))
    throw std::invalid_argument(what + "a buffer is missing");
}

Support IsoAlgorithm::supports(const Shape& shape, const Capabilities& caps) const {
  if (auto why = shape.invalid()) return Support::no(*why);
  if (shape.rule != BlockRule::Uniform && info().collective != Collective::NeighborAlltoallw)
    return Support::no(std::string("the block rule ") + std::string(contract::name(shape.rule)) + " needs neighbor-alltoallw");
  return supports_shape(shape, caps);
}

Cost IsoAlgorithm::lower_bound(const Shape& shape) const {
  const auto m = shape.block_bytes();
  const auto& n = shape.neighborhood;
  Cost c;
  std::set<Offset> distinct;
  for (std::size_t i = 0; i < n.size(); ++i) {
    if (is_zero(n[i])) continue;
    c.alpha_terms = 1;
    if (info().collective != Collective::NeighborAllgather)
      c.beta_bytes += static_cast<double>(m[i]);
    else if (distinct.insert(n[i]).second)
      c.beta_bytes += static_cast<double>(m[i]);
  }
  return c;
}

std::unique_ptr<Runner> IsoAlgorithm::prepare_call(const IsoComm& comm, const Args& args, CallForm form) const {
  if (form == CallForm::Blocking) return prepare(comm, args);
  throw std::logic_error(info().name + " has no " + to_string(form) + " call (supports_call() says so)");
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t h = values.size() / 2;
  return values.size() % 2 ? values[h] : (values[h - 1] + values[h]) / 2;
}

}  // namespace collrepro::iso
