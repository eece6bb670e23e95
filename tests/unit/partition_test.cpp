#include <gtest/gtest.h>

#include "collrepro/partition.hpp"

namespace collrepro {
namespace {

TEST(BalancedPartition, TilesEveryItemExactlyOnceInOrder) {
  for (std::size_t n = 0; n <= 60; ++n)
    for (std::size_t m = 1; m <= 20; ++m) {
      BalancedPartition part(n, m);
      std::size_t at = 0;
      for (std::size_t i = 0; i < m; ++i) {
        EXPECT_EQ(part.start(i), at) << n << "/" << m;
        EXPECT_TRUE(part.size(i) == n / m || part.size(i) == (n + m - 1) / m);
        if (i > 0) {
          EXPECT_LE(part.size(i), part.size(i - 1)) << "larger parts come first";
        }
        for (std::size_t x = part.start(i); x < part.end(i); ++x) EXPECT_EQ(part.owner(x), i);
        at = part.end(i);
      }
      EXPECT_EQ(at, n);
    }
}

TEST(BalancedPartition, RejectsZeroParts) { EXPECT_THROW(BalancedPartition(3, 0), std::invalid_argument); }

}  // namespace
}  // namespace collrepro
