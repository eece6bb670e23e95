#include "collrepro/intergroup.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace collrepro::inter {

Shape Shape::uniform(int p, int q, std::size_t ka, std::size_t kb) {
  return Shape{p, q, std::vector<std::size_t>(static_cast<std::size_t>(std::max(p, 0)), ka),
               std::vector<std::size_t>(static_cast<std::size_t>(std::max(q, 0)), kb)};
}

std::size_t Shape::total(int side) const {
  const auto& v = blocks(side);
  return std::accumulate(v.begin(), v.end(), std::size_t{0});
}

std::size_t Shape::max_block(int side) const {
  const auto& v = blocks(side);
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

bool Shape::uniform_blocks() const {
  auto all_equal = [](const std::vector<std::size_t>& v) {
    return std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) == v.end();
  };
  return all_equal(a) && all_equal(b);
}

std::string Shape::describe() const {
  std::string s = "p=" + std::to_string(p) + " q=" + std::to_string(q);
  if (uniform_blocks())
    return s + " ka=" + std::to_string(max_block(0)) + " kb=" + std::to_string(max_block(1));
  return s + " K_A=" + std::to_string(total(0)) + " K_B=" + std::to_string(total(1));
}

Args Args::allgather(const std::byte* send, std::size_t send_bytes, std::byte* recv, int remote_size,
                     std::size_t recv_block) {
  Args args{send, send_bytes, recv, {}, {}};
  args.recv_counts.assign(static_cast<std::size_t>(remote_size), recv_block);
  args.recv_displs.resize(static_cast<std::size_t>(remote_size));
  for (std::size_t j = 0; j < args.recv_displs.size(); ++j) args.recv_displs[j] = j * recv_block;
  return args;
}

bool Args::contiguous() const {
  std::size_t at = 0;
  for (std::size_t j = 0; j < recv_counts.size(); ++j) {
    if (recv_displs[j] != at) return false;
    at += recv_counts[j];
  }
  return true;
}

std::size_t Args::recv_total() const {
  return std::accumulate(recv_counts.begin(), recv_counts.end(), std::size_t{0});
}

Cost InterAlgorithm::lower_bound(const Shape& shape) const {
  return {1.0, static_cast<double>(std::max(shape.total(0), shape.total(1)))};
}

std::unique_ptr<Runner> InterAlgorithm::prepare_call(const GroupPair& pair, const Args& args, CallForm form,
                                                     const Capabilities&) const {
  if (form == CallForm::Blocking) return prepare(pair, args);
  throw std::logic_error(info().name + " has no " + to_string(form) + " call (supports_call() says so)");
}

}  // namespace collrepro::inter
