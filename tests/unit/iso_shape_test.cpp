// The shape of an isomorphic call and the seed's irregular block rule (seed 004 §4, Fig. 3).
#include "collrepro/iso_shape.hpp"

#include <gtest/gtest.h>

#include <climits>

namespace collrepro::iso {
namespace {

TEST(isoShape, SeedRuleFig3a) {
  // d = 3, r = 1, mhat = 512: corners 1 B, edges 512 B, faces 512^2 B, about 1.5 MB.
  const Shape s = Shape::seed_irregular(Neighborhood::moore(3, 1), 512);
  EXPECT_FALSE(s.invalid());
  EXPECT_EQ(s.total_bytes(), 8u * 1 + 12u * 512 + 6u * 512 * 512);
  EXPECT_EQ(s.total_bytes(), 1579016u);
  const auto m = s.block_bytes();
  EXPECT_EQ(m.front(), 1u);     // (-1,-1,-1)
  EXPECT_EQ(m[4], 512u * 512);  // (-1,0,0)... row order index 4 is (-1,0,0)
}

TEST(isoShape, SeedRuleD4Total) {
  for (std::size_t mh : {0u, 1u, 2u, 7u}) {
    const Shape s = Shape::seed_irregular(Neighborhood::moore(4, 1), mh);
    EXPECT_EQ(s.total_bytes(), 16 + 32 * mh + 24 * mh * mh + 8 * mh * mh * mh) << mh;
  }
}

TEST(isoShape, SeedRuleNeedsNormAtMostD) {
  EXPECT_TRUE(Shape::seed_irregular(Neighborhood::moore(2, 2), 4).invalid());
  const Shape self = Shape::seed_irregular(Neighborhood::parse("list:(0,0),(1,0),(1,1)"), 3);
  EXPECT_EQ(self.block_bytes(), (std::vector<std::size_t>{9, 3, 1}));
  EXPECT_THROW(Shape::seed_irregular(Neighborhood::moore(2, 2), 4).block_bytes(), std::invalid_argument);
  EXPECT_TRUE(Shape::seed_irregular(Neighborhood::moore(3, 1), 1u << 16).invalid()) << "faces of 2^32 bytes";
}

TEST(isoShape, Validity) {
  EXPECT_FALSE(Shape::regular(Neighborhood::moore(3, 2), 64).invalid());
  EXPECT_FALSE(Shape::regular(Neighborhood::moore(3, 2), 64, {4, 0, 2}).invalid());
  EXPECT_TRUE(Shape::regular(Neighborhood::moore(3, 2), 64, {4, 2}).invalid());
  EXPECT_TRUE(Shape::regular(Neighborhood::moore(3, 2), 64, {4, -1, 2}).invalid());
  EXPECT_TRUE(Shape::regular(Neighborhood(), 64).invalid());
  EXPECT_TRUE(Shape::regular(Neighborhood::moore(1, 1), std::size_t{INT_MAX} + 1).invalid());
  EXPECT_EQ(Shape::regular(Neighborhood::moore(1, 1), 5).block_bytes(), (std::vector<std::size_t>{5, 5}));
}

TEST(isoShape, Describe) {
  EXPECT_EQ(Shape::regular(Neighborhood::moore(3, 1), 64).describe(), "moore:d=3,r=1 dims=auto m=64");
  EXPECT_EQ(Shape::regular(Neighborhood::moore(2, 1), 1, {4, 0}).describe(), "moore:d=2,r=1 dims=4x0 m=1");
  EXPECT_EQ(Shape::seed_irregular(Neighborhood::moore(3, 1), 8, {0, 0, 0}).describe(),
            "moore:d=3,r=1 dims=auto mhat=8 (m_i = mhat^(d-|C^i|))");
}

}  // namespace
}  // namespace collrepro::iso
