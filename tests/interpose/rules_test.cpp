// The selection rules (interpose/rules.hpp) and the ring-offset pairing of distributed graphs
// (interpose/iso_topology.hpp), without MPI calls.
#include <gtest/gtest.h>

#include "iso_topology.hpp"
#include "rules.hpp"

namespace collrepro::pmpi {
namespace {

Query inter_query(Collective c, int p, int q, bool half, std::size_t size) {
  Query query;
  query.collective = c;
  query.larger = std::max(p, q);
  query.smaller = std::min(p, q);
  query.half_duplex = half;
  query.msg_size = size;
  return query;
}

TEST(Rules, FirstMatchInFileOrderAndSizeRanges) {
  const auto rules = Rules::parse(R"({
    "collective=allgather": {
      "groups=3:5": {
        "duplex=half": {"any": {"algorithm=halfduplex-fc": {}}},
        "msg_size<=1024": {"algorithm=fullduplex-allgather": {}},
        "msg_size>1024": {"algorithm=root-gathering": {}}
      },
      "any": {"algorithm=native": {}}
    }
  })");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 5, 3, true, 8)), "halfduplex-fc");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 3, 5, false, 1024)), "fullduplex-allgather");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 5, 3, false, 1025)), "root-gathering");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 4, 4, false, 8)), "native");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgatherv, 5, 3, false, 8)), std::nullopt);
}

TEST(Rules, BacktracksWhenASubtreeHasNoMatch) {
  const auto rules = Rules::parse(R"({
    "collective=allgather": {"msg_size<=8": {"groups=2:1": {"algorithm=root-gathering": {}}}},
    "any": {"algorithm=native": {}}
  })");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 7, 1, false, 4)), "native");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 1, 2, false, 4)), "root-gathering");
}

TEST(Rules, NeighbourhoodsMatchInAnyOffsetOrder) {
  const auto rules = Rules::parse(R"({"collective=neighbor-alltoall": {
    "neighborhood=vonneumann:d=2,r=1": {"algorithm=torus": {}}}})");
  Query q;
  q.collective = Collective::NeighborAlltoall;
  q.offsets = sorted_offsets({{-1, 0}, {1, 0}, {0, -1}, {0, 1}});  // a Cartesian communicator's order
  EXPECT_EQ(rules.select(q), "torus");
  q.offsets = sorted_offsets({{-1, 0}, {1, 0}});
  EXPECT_EQ(rules.select(q), std::nullopt);
}

TEST(Rules, RejectsWhatCannotBeRun) {
  for (const char* bad : {R"({"collective=allgather": {"algorithm=torus": {}}})",
                          R"({"collective=neighbor-allgather": {"algorithm=mpi-neighbor": {}}})",
                          R"({"groups=0:3": {"algorithm=native": {}}})", R"({"neighborhood=moore:d=0": {}})",
                          R"({"msg_size<=-1": {}})", R"({"msg_size>=4": {}})", R"({})", R"("text")"})
    EXPECT_THROW(Rules::parse(bad), RulesError) << bad;
}

TEST(RingOffsets, PairsEachDestinationWithTheOppositeSource) {
  EXPECT_EQ(pair_ring_offsets({1, 2, -1}, {-1, -2, 1}, 5), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(pair_ring_offsets({1, -1}, {1, -1}, 7), (std::vector<int>{1, 0}));
  EXPECT_EQ(pair_ring_offsets({0, 1}, {0, -1}, 3), (std::vector<int>{0, 1}));
  EXPECT_EQ(pair_ring_offsets({1, -1}, {-1, 1}, 2), std::nullopt);  // +1 and -1 are one process
  EXPECT_EQ(pair_ring_offsets({1, 2}, {-1, 1}, 5), std::nullopt);   // no source at -2
  EXPECT_EQ(pair_ring_offsets({1}, {-1, 1}, 5), std::nullopt);
}

}  // namespace
}  // namespace collrepro::pmpi
