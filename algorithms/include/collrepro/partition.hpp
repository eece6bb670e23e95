// A balanced partition of n items into m contiguous parts: the first n mod m parts have
// ceil(n/m) items, the rest floor(n/m). It is the one partition rule of seed 001: the
// subgroups of Algorithm 1 (p ranks into q subgroups), its segments (k_B bytes into
// size(j) segments), and the chunks of Algorithm 2 (K bytes into n receivers). Pure, O(1).
#pragma once

#include <cstddef>
#include <stdexcept>

namespace collrepro {

class BalancedPartition {
 public:
  BalancedPartition(std::size_t items, std::size_t parts) : n_(items), m_(parts) {
    if (m_ == 0) throw std::invalid_argument("BalancedPartition: zero parts");
    ceil_ = (n_ + m_ - 1) / m_;
    floor_ = n_ / m_;
    rem_ = n_ % m_;
  }
  std::size_t items() const { return n_; }
  std::size_t parts() const { return m_; }
  std::size_t size(std::size_t i) const { return i < rem_ ? ceil_ : floor_; }
  std::size_t start(std::size_t i) const { return i < rem_ ? i * ceil_ : rem_ * ceil_ + (i - rem_) * floor_; }
  std::size_t end(std::size_t i) const { return start(i) + size(i); }
  // The part holding item x < items(). (When floor is 0, every item lies in the first rem parts.)
  std::size_t owner(std::size_t x) const {
    return x < rem_ * ceil_ ? x / ceil_ : rem_ + (x - rem_ * ceil_) / floor_;
  }

 private:
  std::size_t n_, m_, ceil_, floor_, rem_;
};

}  // namespace collrepro
