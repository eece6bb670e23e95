// Isomorphic schedules (seed 004 §3, §5) without MPI: the table of counts, the closed
// forms, per-step and per-block invariants, symbolic execution on small tori (every block
// delivered to slot i at R ⊕ C^i) and the Algorithm 1 erratum.
#include "collrepro/iso_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <numeric>
#include <random>

namespace collrepro::iso {
namespace {

struct Builder {
  const char* name;
  Schedule (*build)(const Neighborhood&);
};

const Builder kBuilders[] = {
    {"straightforward-alltoall", [](const Neighborhood& n) { return straightforward_schedule(n, Pattern::Alltoall); }},
    {"straightforward-allgather",
     [](const Neighborhood& n) { return straightforward_schedule(n, Pattern::Allgather); }},
    {"torus-alltoall", [](const Neighborhood& n) { return torus_alltoall_schedule(n); }},
    {"direct-alltoall", [](const Neighborhood& n) { return direct_alltoall_schedule(n); }},
    {"torus-allgather", [](const Neighborhood& n) { return torus_allgather_schedule(n); }},
    {"direct-allgather", [](const Neighborhood& n) { return direct_allgather_schedule(n); }},
};

// ---------------------------------------------------------------------------------------
// The counts of every neighbourhood seed 004 uses (s, D, V, W_hop, W_edge, R_dir, V_dir, W_dir;
// docs/algorithms/torus.md), from the closed definitions and from the schedules' step and
// part counts.
struct Row {
  const char* text;
  std::size_t s, D, V, W_hop, W_edge, R_dir, V_dir, W_dir;
};

const Row kTable[] = {
    {"moore:d=2,r=1", 8, 4, 12, 8, 8, 4, 12, 8},
    {"moore:d=2,r=2", 24, 8, 60, 24, 36, 8, 40, 24},
    {"moore:d=2,r=3", 48, 12, 168, 48, 96, 12, 84, 48},
    {"moore:d=3,r=1", 26, 6, 54, 26, 26, 6, 54, 26},
    {"moore:d=3,r=2", 124, 12, 450, 124, 186, 12, 300, 124},
    {"moore:d=3,r=3", 342, 18, 1764, 342, 684, 18, 882, 342},
    {"moore:d=4,r=1", 80, 8, 216, 80, 80, 8, 216, 80},
    {"moore:d=4,r=2", 624, 16, 3000, 624, 936, 16, 2000, 624},
    {"moore:d=4,r=3", 2400, 24, 16464, 2400, 4800, 24, 8232, 2400},
    {"moore:d=5,r=1", 242, 10, 810, 242, 242, 10, 810, 242},
    {"moore:d=5,r=2", 3124, 20, 18750, 3124, 4686, 20, 12500, 3124},
    {"moore:d=5,r=3", 16806, 30, 144060, 16806, 33612, 30, 72030, 16806},
    {"list:(1,0,0),(0,1,0),(0,0,1),(1,1,0),(1,0,1),(0,1,1),(1,1,1)", 7, 3, 12, 7, 7, 3, 12, 7},
    {"octant:d=3,r=1", 7, 3, 12, 7, 7, 3, 12, 7},
    {"octant:d=3,r=3", 63, 9, 288, 63, 126, 9, 144, 63},
    {"shells:d=3,r=3+7", 1396, 42, 17820, 3374, 6836, 42, 3948, 1540},
};

TEST(isoCounts, CountsTableFromTheDefinitions) {
  for (const Row& row : kTable) {
    const Counts k = counts(Neighborhood::parse(row.text));
    EXPECT_EQ(k.s, row.s) << row.text;
    EXPECT_EQ(k.D, row.D) << row.text;
    EXPECT_EQ(k.V, row.V) << row.text;
    EXPECT_EQ(k.W_hop, row.W_hop) << row.text;
    EXPECT_EQ(k.W_edge, row.W_edge) << row.text;
    EXPECT_EQ(k.R_dir, row.R_dir) << row.text;
    EXPECT_EQ(k.V_dir, row.V_dir) << row.text;
    EXPECT_EQ(k.W_dir, row.W_dir) << row.text;
  }
}

TEST(isoCounts, CountsTableFromTheSchedules) {
  for (const Row& row : kTable) {
    const auto n = Neighborhood::parse(row.text);
    const Schedule a2a = torus_alltoall_schedule(n), dir = direct_alltoall_schedule(n);
    const Schedule ag = torus_allgather_schedule(n), dag = direct_allgather_schedule(n);
    const Schedule lin = straightforward_schedule(n, Pattern::Alltoall);
    EXPECT_EQ(a2a.rounds(), row.D) << row.text;
    EXPECT_EQ(a2a.volume(), row.V) << row.text;
    EXPECT_EQ(dir.rounds(), row.R_dir) << row.text;
    EXPECT_EQ(dir.volume(), row.V_dir) << row.text;
    EXPECT_EQ(ag.rounds(), row.D) << row.text;
    EXPECT_EQ(ag.volume(), row.W_hop) << row.text;
    EXPECT_EQ(dag.rounds(), row.R_dir) << row.text;
    EXPECT_EQ(dag.volume(), row.W_dir) << row.text;
    EXPECT_EQ(lin.rounds(), row.s) << row.text;
    EXPECT_EQ(lin.volume(), row.s) << row.text;
  }
}

// The headline numbers of docs/algorithms/torus.md and torus-direct.md, spelled out.
TEST(isoCounts, HeadlineNumbers) {
  const auto moore = Neighborhood::parse("moore:d=3,r=3");
  EXPECT_EQ(torus_alltoall_schedule(moore).rounds(), 18u);
  EXPECT_EQ(torus_alltoall_schedule(moore).volume(), 1764u);
  EXPECT_EQ(direct_alltoall_schedule(moore).rounds(), 18u);
  EXPECT_EQ(direct_alltoall_schedule(moore).volume(), 882u);
  EXPECT_EQ(torus_allgather_schedule(moore).volume(), 342u);
  const auto octant = Neighborhood::parse("octant:d=3,r=3");
  EXPECT_EQ(torus_alltoall_schedule(octant).rounds(), 9u);
  EXPECT_EQ(torus_alltoall_schedule(octant).volume(), 288u);
  EXPECT_EQ(direct_alltoall_schedule(octant).volume(), 144u);
  EXPECT_EQ(torus_allgather_schedule(octant).volume(), 63u);
  // Shells erratum: the paper's "(2+2)d = 12" direct rounds are 42, like the torus algorithm.
  const auto shells = Neighborhood::parse("shells:d=3,r=3+7");
  EXPECT_EQ(shells.size(), 1396u);
  EXPECT_EQ(torus_alltoall_schedule(shells).rounds(), 42u);
  EXPECT_EQ(direct_alltoall_schedule(shells).rounds(), 42u);
  EXPECT_EQ(torus_alltoall_schedule(shells).volume(), 17820u);
  EXPECT_EQ(direct_alltoall_schedule(shells).volume(), 3948u);
}

// The D formula as printed in seed 004 §3.1 sums over j = 0..s-1 (read here as the d
// dimensions, since c has only d coordinates) ONE maximum of the positive and the negative
// part of c_j: sum_j max_i |c^i_j|. That undercounts the rounds of any neighbourhood with
// both signs in a dimension (Moore r: r d instead of 2 r d); the schedule needs D rounds.
TEST(isoCounts, PrintedDFormulaUndercountsTheRounds) {
  auto printed_D = [](const Neighborhood& n) {
    std::size_t d = 0;
    for (std::size_t j = 0; j < static_cast<std::size_t>(n.dims()); ++j) {
      int most = 0;
      for (const Offset& c : n.offsets()) most = std::max(most, std::abs(c[j]));
      d += static_cast<std::size_t>(most);
    }
    return d;
  };
  const auto moore = Neighborhood::parse("moore:d=3,r=3");
  EXPECT_EQ(printed_D(moore), 9u);
  EXPECT_EQ(torus_alltoall_schedule(moore).rounds(), 18u);
  EXPECT_EQ(counts(moore).D, 18u);
  // With one sign per dimension (the positive octant) both readings agree.
  const auto octant = Neighborhood::parse("octant:d=3,r=3");
  EXPECT_EQ(printed_D(octant), counts(octant).D);
}

TEST(isoCounts, ClosedFormsForMooreAndOctant) {
  for (int d = 1; d <= 4; ++d)
    for (int r = 1; r <= 3; ++r) {
      std::size_t q = 1, o = 1;  // (2r+1)^(d-1), (r+1)^(d-1)
      for (int j = 1; j < d; ++j) q *= static_cast<std::size_t>(2 * r + 1), o *= static_cast<std::size_t>(r + 1);
      const auto D = static_cast<std::size_t>(d), R = static_cast<std::size_t>(r);
      const Counts m = counts(Neighborhood::moore(d, r));
      const std::size_t s = q * (2 * R + 1) - 1;
      EXPECT_EQ(m.s, s);
      EXPECT_EQ(m.D, 2 * R * D);
      EXPECT_EQ(m.R_dir, 2 * R * D);
      EXPECT_EQ(m.V, D * R * (R + 1) * q);
      EXPECT_EQ(m.V_dir, 2 * R * D * q);
      EXPECT_EQ(m.W_hop, s);
      EXPECT_EQ(m.W_dir, s);
      EXPECT_EQ(2 * m.W_edge, (R + 1) * s);
      const Counts k = counts(Neighborhood::octant(d, r));
      EXPECT_EQ(k.s, o * (R + 1) - 1);
      EXPECT_EQ(k.D, R * D);
      EXPECT_EQ(k.V, D * o * R * (R + 1) / 2);
      EXPECT_EQ(k.V_dir, D * R * o);
      EXPECT_EQ(k.W_hop, k.s);
    }
}

// Break-even block size of seed 004 §3.2 (the printed inequality is garbled): combining wins
// iff m < alpha (s - D) / (beta (V - s)); at that m the two predictions are equal.
TEST(isoCounts, BreakEvenBlockSize) {
  const auto n = Neighborhood::parse("moore:d=3,r=3");
  const double alpha = 1, beta = 1;
  for (const auto& [schedule, expect] :
       {std::pair{torus_alltoall_schedule(n), 0.228}, {direct_alltoall_schedule(n), 0.600}}) {
    const double s = 342, D = static_cast<double>(schedule.rounds()), V = static_cast<double>(schedule.volume());
    const double m = alpha * (s - D) / (beta * (V - s));
    EXPECT_NEAR(m, expect, 0.001);
    const std::vector<std::size_t> one(n.size(), 1);
    const Cost comb = schedule_cost(schedule, one),
               lin = schedule_cost(straightforward_schedule(n, Pattern::Alltoall), one);
    EXPECT_NEAR(comb.alpha_terms * alpha + comb.beta_bytes * beta * m,
                lin.alpha_terms * alpha + lin.beta_bytes * beta * m, 1e-9);
  }
}

TEST(isoCounts, ScheduleCostIsTheModel) {
  const auto n = Neighborhood::parse("moore:d=3,r=3");
  const std::vector<std::size_t> m(n.size(), 8);
  const Cost c = schedule_cost(torus_alltoall_schedule(n), m);
  EXPECT_EQ(c.alpha_terms, 18);
  EXPECT_EQ(c.beta_bytes, 1764.0 * 8);
  EXPECT_EQ(max_step_bytes(torus_alltoall_schedule(n), m), 147u * 8) << "r (2r+1)^(d-1) blocks in the first step";
  const Cost g = schedule_cost(torus_allgather_schedule(n), m);
  EXPECT_EQ(g.beta_bytes, 342.0 * 8);
}

// ---------------------------------------------------------------------------------------
// Symbolic execution on small tori.

std::vector<Neighborhood> catalogue() {
  std::vector<Neighborhood> v;
  for (const char* t : {"moore:d=1,r=1",
                        "moore:d=1,r=3",
                        "moore:d=2,r=1",
                        "moore:d=2,r=2",
                        "moore:d=3,r=1",
                        "moore:d=3,r=2",
                        "moore:d=4,r=1",
                        "octant:d=3,r=1",
                        "octant:d=3,r=3",
                        "vonneumann:d=2,r=2",
                        "vonneumann:d=3,r=2",
                        "shells:d=2,r=1+3",
                        "shells:d=3,r=1+2",
                        "list:(1,0,0),(0,1,0),(0,0,1),(1,1,0),(1,0,1),(0,1,1),(1,1,1)",
                        "list:(0,0),(1,0),(1,0),(-5,3),(0,0),(2,-7),(1,0)",  // self, repeats, long
                        "list:(-1,-2),(-3,0),(0,-1)",                        // negative only
                        "list:(4)",
                        "list:(0)",
                        "list:(0,0,0)",
                        "list:(2,0,-3,1),(0,0,0,-1),(1,1,1,1)"})
    v.push_back(Neighborhood::parse(t));
  std::mt19937 rng(4004);  // fixed seed: random neighbourhoods with zeros, repeats, long offsets
  for (int k = 0; k < 24; ++k) {
    const int d = 1 + static_cast<int>(rng() % 4);
    const std::size_t s = 1 + rng() % 14;
    std::vector<Offset> offsets;
    for (std::size_t i = 0; i < s; ++i) {
      if (i > 0 && rng() % 6 == 0) {
        offsets.push_back(offsets[rng() % offsets.size()]);
        continue;
      }
      Offset c;
      for (int j = 0; j < d; ++j) c.push_back(static_cast<int>(rng() % 13) - 6);
      offsets.push_back(c);
    }
    v.push_back(Neighborhood::list(offsets));
  }
  return v;
}

// Tori per dimension count: sizes 1 and 2 (where +1 and -1 coincide), small odd and even ones.
std::vector<std::vector<int>> tori(int d) {
  switch (d) {
    case 1: return {{1}, {2}, {3}, {7}};
    case 2: return {{1, 1}, {2, 2}, {3, 4}, {1, 5}, {2, 3}};
    case 3: return {{1, 2, 3}, {2, 2, 2}, {3, 1, 4}};
    default: return {{2, 1, 3, 2}, {1, 1, 1, 1}, {3, 2, 2, 1}};
  }
}

TEST(isoSchedules, EveryBlockReachesItsSlotOnSmallTori) {
  for (const Neighborhood& n : catalogue())
    for (const auto& dims : tori(n.dims()))
      for (const Builder& b : kBuilders) {
        const Schedule s = b.build(n);
        const auto bad = simulate(s, n, dims);
        EXPECT_FALSE(bad) << b.name << " " << n.to_string() << " on " << ::testing::PrintToString(dims) << ": " << *bad;
      }
}

TEST(isoSchedules, LargeNeighborhoodsOnOneTorus) {
  for (const char* t : {"moore:d=3,r=3", "shells:d=3,r=3+7", "moore:d=4,r=2"})
    for (const Builder& b : kBuilders) {
      const auto n = Neighborhood::parse(t);
      const std::vector<int> dims = n.dims() == 3 ? std::vector<int>{5, 2, 3} : std::vector<int>{2, 3, 1, 2};
      const auto bad = simulate(b.build(n), n, dims);
      EXPECT_FALSE(bad) << b.name << " " << t << ": " << *bad;
    }
}

TEST(isoSchedules, StepInvariantsAndRoundCounts) {
  for (const Neighborhood& n : catalogue()) {
    const Counts k = counts(n);
    for (const Builder& b : kBuilders) {
      const Schedule s = b.build(n);
      EXPECT_FALSE(check_steps(s)) << b.name << " " << n.to_string() << ": " << *check_steps(s);
      for (const Step& st : s.steps) {
        EXPECT_EQ(st.offset.size(), static_cast<std::size_t>(n.dims()));
        EXPECT_FALSE(st.send.empty()) << b.name << ": a step without parts";
      }
    }
    EXPECT_EQ(torus_alltoall_schedule(n).rounds(), k.D) << n.to_string();
    EXPECT_EQ(torus_alltoall_schedule(n).volume(), k.V) << n.to_string();
    EXPECT_EQ(direct_alltoall_schedule(n).rounds(), k.R_dir) << n.to_string();
    EXPECT_EQ(direct_alltoall_schedule(n).volume(), k.V_dir) << n.to_string();
    EXPECT_EQ(torus_allgather_schedule(n).rounds(), k.D) << n.to_string();
    EXPECT_EQ(torus_allgather_schedule(n).volume(), k.W_hop) << n.to_string();
    EXPECT_EQ(direct_allgather_schedule(n).rounds(), k.R_dir) << n.to_string();
    EXPECT_EQ(direct_allgather_schedule(n).volume(), k.W_dir) << n.to_string();
  }
}

// Torus steps go to a unit neighbour, direct steps to (0,..,v,..,0).
TEST(isoSchedules, StepsMoveAlongOneDimension) {
  for (const Neighborhood& n : catalogue()) {
    for (const Schedule& s : {torus_alltoall_schedule(n), torus_allgather_schedule(n)})
      for (const Step& st : s.steps) EXPECT_EQ(norm1(st.offset), 1);
    for (const Schedule& s : {direct_alltoall_schedule(n), direct_allgather_schedule(n)})
      for (const Step& st : s.steps) EXPECT_EQ(nnz(st.offset), 1);
  }
}

// All-to-all: block i moves ||C^i|| (torus) or nnz(C^i) (direct) times, first from sendbuf[i],
// each move forwarding what the previous one received, the last into recvbuf[i].
void expect_block_paths(const Schedule& s, const Neighborhood& n, int (*hops)(const Offset&), const char* name) {
  for (std::size_t i = 0; i < n.size(); ++i) {
    std::vector<std::pair<Part, Part>> moves;
    for (const Step& st : s.steps)
      for (std::size_t k = 0; k < st.send.size(); ++k)
        if (s.size_class(st.recv[k]) == static_cast<int>(i)) moves.push_back({st.send[k], st.recv[k]});
    ASSERT_EQ(moves.size(), static_cast<std::size_t>(hops(n[i]))) << name << " block " << i << " " << n.to_string();
    const int slot = static_cast<int>(i);
    if (moves.empty()) {
      EXPECT_NE(std::find(s.local.recv.begin(), s.local.recv.end(), Part{Buf::Recv, slot}), s.local.recv.end())
          << name << ": zero offset " << i << " is not delivered locally";
      continue;
    }
    EXPECT_EQ(moves.front().first, (Part{Buf::Send, slot})) << name;
    EXPECT_EQ(moves.back().second, (Part{Buf::Recv, slot})) << name;
    for (std::size_t h = 1; h < moves.size(); ++h) EXPECT_EQ(moves[h].first, moves[h - 1].second) << name;
  }
}

TEST(isoSchedules, AlltoallBlockPaths) {
  for (const Neighborhood& n : catalogue()) {
    expect_block_paths(torus_alltoall_schedule(n), n, norm1, "torus");
    expect_block_paths(direct_alltoall_schedule(n), n, nnz, "direct");
  }
}

// Allgather: every receive slot and every intermediate slot is written exactly once.
TEST(isoSchedules, AllgatherWritesEverySlotOnce) {
  for (const Neighborhood& n : catalogue())
    for (const Schedule& s : {torus_allgather_schedule(n), direct_allgather_schedule(n)}) {
      std::map<std::pair<Buf, int>, int> writes;
      for (const Step& st : s.steps)
        for (const Part& p : st.recv) ++writes[{p.buf, p.slot}];
      for (const Part& p : s.local.recv) ++writes[{p.buf, p.slot}];
      for (std::size_t i = 0; i < n.size(); ++i)
        EXPECT_EQ((writes[{Buf::Recv, static_cast<int>(i)}]), 1) << n.to_string();
      for (std::size_t k = 0; k < s.inter_block.size(); ++k) EXPECT_EQ((writes[{Buf::Inter, static_cast<int>(k)}]), 1);
    }
}

// Any dimension order gives a correct allgather with the same rounds; only W changes.
TEST(isoSchedules, AllgatherAnyDimensionOrder) {
  for (const char* t : {"shells:d=3,r=1+2", "list:(1,0,0),(0,1,0),(0,0,1),(1,1,0),(1,0,1),(0,1,1),(1,1,1)",
                        "list:(2,0,-3),(0,0,0),(2,1,-3),(-1,1,2),(2,0,-3)", "vonneumann:d=3,r=2"}) {
    const auto n = Neighborhood::parse(t);
    std::vector<int> order = {0, 1, 2};
    do {
      const Counts k = counts(n, order);
      const Schedule torus = torus_allgather_schedule(n, order), direct = direct_allgather_schedule(n, order);
      EXPECT_EQ(torus.rounds(), k.D);
      EXPECT_EQ(torus.volume(), k.W_hop);
      EXPECT_EQ(direct.rounds(), k.R_dir);
      EXPECT_EQ(direct.volume(), k.W_dir);
      EXPECT_FALSE(simulate(torus, n, std::vector<int>{3, 2, 4})) << t;
      EXPECT_FALSE(simulate(direct, n, std::vector<int>{3, 2, 4})) << t;
    } while (std::next_permutation(order.begin(), order.end()));
  }
}

TEST(isoSchedules, AllgatherDimensionOrderHeuristic) {
  EXPECT_EQ(allgather_dimension_order(Neighborhood::moore(3, 2)), (std::vector<int>{0, 1, 2}));
  // c_1 is 5 for every neighbour: shared by the most, so visited first.
  EXPECT_EQ(allgather_dimension_order(Neighborhood::parse("list:(1,5),(2,5),(3,5)")), (std::vector<int>{1, 0}));
  const auto n = Neighborhood::parse("list:(1,5),(2,5),(3,5)");
  EXPECT_EQ(torus_allgather_schedule(n).volume(), 3u + 5u);
  EXPECT_THROW(torus_allgather_schedule(n, std::vector<int>{0, 0}), std::invalid_argument);
}

TEST(isoSchedules, StraightforwardIsListing4) {
  const auto n = Neighborhood::parse("list:(0,0),(1,-1),(1,-1)");
  for (Pattern p : {Pattern::Alltoall, Pattern::Allgather}) {
    const Schedule s = straightforward_schedule(n, p);
    ASSERT_EQ(s.rounds(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(s.steps[i].offset, n[i]);
      EXPECT_EQ(s.steps[i].send, (std::vector<Part>{{Buf::Send, p == Pattern::Alltoall ? static_cast<int>(i) : 0}}));
      EXPECT_EQ(s.steps[i].recv, (std::vector<Part>{{Buf::Recv, static_cast<int>(i)}}));
    }
    EXPECT_TRUE(s.local.send.empty());
  }
}

// ---------------------------------------------------------------------------------------
// Regression for the Algorithm 1 erratum (seed 004 §3.3; docs/errata.md): the printed
// `firstround[i] == j` test re-sends sendbuf[i] on the second hop of the first dimension. It must
// FAIL whenever a block has |c| >= 2 in its first nonzero dimension, and happens to work for r = 1.
TEST(isoAlgorithm1Erratum, LiteralFirstroundFailsForMooreR2) {
  const auto n = Neighborhood::moore(2, 2);
  const auto literal = torus_alltoall_schedule(n, FirstHop::LiteralFirstround);
  EXPECT_TRUE(simulate(literal, n, std::vector<int>{5, 5}).has_value())
      << "the literal reading of Algorithm 1 must not deliver Moore r=2 correctly";
  EXPECT_FALSE(simulate(torus_alltoall_schedule(n), n, std::vector<int>{5, 5}));
}

TEST(isoAlgorithm1Erratum, LiteralFirstroundFailsWheneverAFirstCoordinateExceedsOne) {
  for (const char* t : {"moore:d=3,r=3", "octant:d=3,r=3", "shells:d=2,r=1+3", "list:(2)"}) {
    const auto n = Neighborhood::parse(t);
    const std::vector<int> dims(static_cast<std::size_t>(n.dims()), 7);
    EXPECT_TRUE(simulate(torus_alltoall_schedule(n, FirstHop::LiteralFirstround), n, dims).has_value()) << t;
  }
  for (const char* t : {"moore:d=3,r=1", "octant:d=3,r=1"}) {
    const auto n = Neighborhood::parse(t);
    EXPECT_FALSE(simulate(torus_alltoall_schedule(n, FirstHop::LiteralFirstround), n, std::vector<int>{3, 4, 5}))
        << t << ": r = 1 never reaches the bug";
  }
}

}  // namespace
}  // namespace collrepro::iso
