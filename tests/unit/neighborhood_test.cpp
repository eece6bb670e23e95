// Neighbourhood generators, the row order, the text syntax and its errors (seed 004 §2).
#include "collrepro/neighborhood.hpp"

#include <gtest/gtest.h>

namespace collrepro::iso {
namespace {

TEST(neighborhood, MooreD2R1InRowOrder) {
  const auto n = Neighborhood::parse("moore:d=2,r=1");
  const std::vector<Offset> want = {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}};
  EXPECT_EQ(n.offsets(), want);
  EXPECT_EQ(n.dims(), 2);
}

TEST(neighborhood, SizesOfThePapersNeighborhoods) {
  EXPECT_EQ(Neighborhood::parse("moore:d=3,r=3").size(), 342u);
  EXPECT_EQ(Neighborhood::parse("moore:d=5,r=3").size(), 16806u);
  EXPECT_EQ(Neighborhood::parse("octant:d=3,r=3").size(), 63u);
  EXPECT_EQ(Neighborhood::parse("octant:d=3,r=1").size(), 7u);
  EXPECT_EQ(Neighborhood::parse("shells:d=3,r=3+7").size(), 1396u);
  EXPECT_EQ(Neighborhood::parse("vonneumann:d=2,r=2").size(), 12u);
  EXPECT_EQ(Neighborhood::parse("vonneumann:d=3,r=1").size(), 6u);
}

TEST(neighborhood, GeneratedKindsAreInRowOrderWithoutZero) {
  for (const char* text : {"moore:d=3,r=2", "vonneumann:d=3,r=2", "octant:d=4,r=2", "shells:d=2,r=1+3"}) {
    const auto n = Neighborhood::parse(text);
    for (std::size_t i = 0; i < n.size(); ++i) {
      EXPECT_FALSE(is_zero(n[i])) << text;
      if (i > 0) {
        EXPECT_LT(n[i - 1], n[i]) << text << ": row order is lexicographic, c_0 outermost";
      }
    }
  }
}

TEST(neighborhood, MembershipRules) {
  const auto vn = Neighborhood::parse("vonneumann:d=3,r=2");
  for (const Offset& c : vn.offsets()) EXPECT_LE(norm1(c), 2);
  const auto octant = Neighborhood::parse("octant:d=3,r=2");
  for (const Offset& c : octant.offsets())
    for (int x : c) EXPECT_TRUE(x >= 0 && x <= 2);
  const auto shells = Neighborhood::parse("shells:d=3,r=2+4");
  for (const Offset& c : shells.offsets()) EXPECT_TRUE(norm_inf(c) == 2 || norm_inf(c) == 4);
}

TEST(neighborhood, ExplicitListKeepsOrderZerosAndRepeats) {
  const auto n = Neighborhood::parse("list:(1,0,0),(0,0,0),(1,0,0),(-9,2,7)");
  ASSERT_EQ(n.size(), 4u);
  EXPECT_EQ(n.dims(), 3);
  EXPECT_EQ(n[1], (Offset{0, 0, 0}));
  EXPECT_EQ(n[2], n[0]);
  EXPECT_EQ(n[3], (Offset{-9, 2, 7}));
}

TEST(neighborhood, PapersOctantListingIsAList) {
  const auto n = Neighborhood::parse("list:(1,0,0),(0,1,0),(0,0,1),(1,1,0),(1,0,1),(0,1,1),(1,1,1)");
  EXPECT_EQ(n.size(), 7u);
  // Same set as octant:d=3,r=1 but a different (buffer) order.
  EXPECT_NE(n.offsets(), Neighborhood::octant(3, 1).offsets());
}

TEST(neighborhood, ToStringRoundTrips) {
  for (const char* text : {"moore:d=3,r=1", "vonneumann:d=2,r=2", "octant:d=3,r=3", "shells:d=3,r=3+7",
                           "list:(1,0,0),(0,1,0)", "list:(0),(-4),(0)", "shells:d=2,r=1"}) {
    const auto n = Neighborhood::parse(text);
    EXPECT_EQ(n.to_string(), text);
    EXPECT_EQ(Neighborhood::parse(n.to_string()), n);
  }
  // Spaces are tolerated, radii are normalised.
  EXPECT_EQ(Neighborhood::parse(" moore : d = 2 , r = 1 ").to_string(), "moore:d=2,r=1");
  EXPECT_EQ(Neighborhood::parse("shells:d=2,r=3+1+3").to_string(), "shells:d=2,r=1+3");
  EXPECT_EQ(Neighborhood::parse("moore:r=1,d=2"), Neighborhood::moore(2, 1));
}

// Every error names the offending token and lists the accepted syntax.
void expect_error(const std::string& text, const std::string& token) {
  try {
    Neighborhood::parse(text);
    ADD_FAILURE() << text << " was accepted";
  } catch (const NeighborhoodError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(token), std::string::npos) << text << ": " << what;
    EXPECT_NE(what.find("accepted: "), std::string::npos) << what;
    EXPECT_NE(what.find(neighborhood_syntax()), std::string::npos) << what;
  }
}

TEST(neighborhood, ErrorsNameTheBadToken) {
  expect_error("moor:d=3,r=1", "'moor'");
  expect_error("moore", "missing ':'");
  expect_error("moore:d=x,r=1", "'x'");
  expect_error("moore:d=3", "needs both d= and r=");
  expect_error("moore:d=3,r=1,q=2", "'q'");
  expect_error("moore:d=3,r", "'r' is not key=value");
  expect_error("moore:d=3,d=2,r=1", "'d' given twice");
  expect_error("moore:d=3,r=1+2", "only shells");
  expect_error("moore:d=0,r=1", "d must be >= 1");
  expect_error("octant:d=3,r=0", "r must be >= 1");
  expect_error("shells:d=3,r=0+2", "every radius must be >= 1");
  expect_error("moore:d=30,r=3", "spans more than");
  expect_error("list:(1,0),(1)", "'(1)'");
  expect_error("list:(1,0", "unclosed '(1,0'");
  expect_error("list:(1,a)", "'a'");
  expect_error("list:(1,0)(0,1)", "expected ','");
  expect_error("list:(1,0),", "trailing ','");
  expect_error("list:", "at least one offset");
  expect_error("list:1,0", "expected '('");
  expect_error("moore:d=99999999999,r=1", "'99999999999'");
}

TEST(neighborhood, Norms) {
  EXPECT_EQ(norm1({-3, 0, 2}), 5);
  EXPECT_EQ(norm_inf({-3, 0, 2}), 3);
  EXPECT_EQ(nnz({-3, 0, 2}), 2);
  EXPECT_TRUE(is_zero({0, 0}));
  EXPECT_EQ(axis_offset(3, 1, -2), (Offset{0, -2, 0}));
}

}  // namespace
}  // namespace collrepro::iso
