// The prefix trie of seed 004 §3.2 as a routing state; see prefix_trie.hpp.
#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

#include "prefix_trie.hpp"

namespace collrepro::iso {

std::vector<int> allgather_dimension_order(const Neighborhood& n) {
  std::vector<std::size_t> largest_class(static_cast<std::size_t>(n.dims()), 0);
  for (std::size_t j = 0; j < largest_class.size(); ++j) {
    std::map<int, std::size_t> count;
    for (const Offset& c : n.offsets()) largest_class[j] = std::max(largest_class[j], ++count[c[j]]);
  }
  std::vector<int> order(largest_class.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return largest_class[static_cast<std::size_t>(a)] > largest_class[static_cast<std::size_t>(b)];
  });
  return order;
}

PrefixTrie::PrefixTrie(const Neighborhood& n, std::span<const int> order)
    : n_(n), order_(order.begin(), order.end()), sorted_(n.size()) {
  std::vector<int> check = order_;
  std::sort(check.begin(), check.end());
  for (std::size_t j = 0; j < check.size(); ++j)
    if (check[j] != static_cast<int>(j) || check.size() != static_cast<std::size_t>(n.dims()))
      throw std::invalid_argument("allgather dimension order is not a permutation of 0..d-1");
  std::iota(sorted_.begin(), sorted_.end(), std::size_t{0});
  std::stable_sort(sorted_.begin(), sorted_.end(), [&](std::size_t a, std::size_t b) {
    for (int j : order_)
      if (n[a][static_cast<std::size_t>(j)] != n[b][static_cast<std::size_t>(j)])
        return n[a][static_cast<std::size_t>(j)] < n[b][static_cast<std::size_t>(j)];
    return false;
  });
  schedule_.pattern = Pattern::Allgather;
  schedule_.blocks = n.size();
  schedule_.local.offset.assign(static_cast<std::size_t>(n.dims()), 0);
  if (!n.offsets().empty()) nodes_.push_back({0, n.size(), {Buf::Send, 0}});
}

int PrefixTrie::coordinate(std::size_t sorted_pos, int dim) const {
  return n_[sorted_[sorted_pos]][static_cast<std::size_t>(dim)];
}

std::vector<int> PrefixTrie::children(const Node& node) const {
  std::vector<int> values;
  for (std::size_t k = node.begin; k < node.end; ++k)
    if (values.empty() || values.back() != coordinate(k, dim())) values.push_back(coordinate(k, dim()));
  return values;
}

std::pair<std::size_t, std::size_t> PrefixTrie::child_run(const Node& node, int value) const {
  std::size_t b = node.begin;
  while (b < node.end && coordinate(b, dim()) < value) ++b;
  std::size_t e = b;
  while (e < node.end && coordinate(e, dim()) == value) ++e;
  return {b, e};
}

// The receive location of a child's block: recvbuf of the first neighbour that equals the
// padded child prefix (its remaining coordinates are all zero), else a fresh interbuf slot.
Part PrefixTrie::slot_for(std::size_t begin, std::size_t end) {
  for (std::size_t k = begin; k < end; ++k) {
    bool rest_zero = true;
    for (std::size_t l = static_cast<std::size_t>(level_) + 1; l < order_.size(); ++l)
      rest_zero = rest_zero && coordinate(k, order_[l]) == 0;
    if (rest_zero) return {Buf::Recv, static_cast<int>(sorted_[k])};
  }
  schedule_.inter_block.push_back(0);
  return {Buf::Inter, static_cast<int>(schedule_.inter_block.size() - 1)};
}

Part PrefixTrie::forward(Step& step, const Node& node, Part from, int value) {
  const auto [b, e] = child_run(node, value);
  Part to;
  if (b == e) {  // a transit position, no neighbour there
    schedule_.inter_block.push_back(0);
    to = {Buf::Inter, static_cast<int>(schedule_.inter_block.size() - 1)};
  } else {
    to = slot_for(b, e);
    children_.push_back({b, e, to});
  }
  step.send.push_back(from);
  step.recv.push_back(to);
  return to;
}

void PrefixTrie::descend() {
  for (const Node& node : nodes_) {
    const auto [b, e] = child_run(node, 0);
    if (b != e) children_.push_back({b, e, node.loc});
  }
  std::sort(children_.begin(), children_.end(), [](const Node& x, const Node& y) { return x.begin < y.begin; });
  std::size_t covered = 0;
  for (const Node& c : children_) {
    if (c.begin != covered) throw std::logic_error("prefix trie: a child was never reached");
    covered = c.end;
  }
  if (covered != n_.size()) throw std::logic_error("prefix trie: a child was never reached");
  nodes_ = std::move(children_);
  children_.clear();
  ++level_;
}

Schedule PrefixTrie::finish() {
  for (const Node& leaf : nodes_)
    for (std::size_t k = leaf.begin; k < leaf.end; ++k) {
      const Part want{Buf::Recv, static_cast<int>(sorted_[k])};
      if (leaf.loc == want) continue;
      schedule_.local.send.push_back(leaf.loc);
      schedule_.local.recv.push_back(want);
    }
  return std::move(schedule_);
}

}  // namespace collrepro::iso
