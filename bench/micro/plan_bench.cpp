// Plan and schedule computation of collplan (pure, no MPI). One line per plan:
//   COLLMICRO_PLAN(name, expression);   // the expression is evaluated once per iteration
// Add new schedules here as they appear in algorithms/include/collrepro/.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <vector>

#include "collrepro/exchange_plan.hpp"
#include "collrepro/halfduplex_fc_plan.hpp"
#include "collrepro/iso_schedule.hpp"
#include "collrepro/neighborhood.hpp"
#include "collrepro/partition.hpp"
#include "collrepro/ring_schedule.hpp"

#define COLLMICRO_PLAN(name, ...)                                                 \
  static void BM_plan_##name(benchmark::State& state) {                          \
    for (auto _ : state) benchmark::DoNotOptimize(__VA_ARGS__);                   \
  }                                                                               \
  BENCHMARK(BM_plan_##name)

namespace {

using namespace collrepro;

// Every rank's plan of a group: what one process computes, times the group size.
template <class F>
std::size_t all_ranks(int n, F plan_of) {
  std::size_t total = 0;
  for (int r = 0; r < n; ++r) total += plan_of(r);
  return total;
}

const std::vector<std::size_t> arithmetic_1024 = [] {
  std::vector<std::size_t> v(1024);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 2 * (i + 1) * 64;
  return v;
}();

const iso::Neighborhood shells_3_7 = iso::Neighborhood::parse("shells:d=3,r=3+7");
const iso::Neighborhood moore_3_3 = iso::Neighborhood::parse("moore:d=3,r=3");

}  // namespace

// Seed 001 Algorithm 2 at 2048 ranks (1024 + 1024, arithmetic blocks): every receiver's plan.
COLLMICRO_PLAN(alg2_partition_recvs_2048,
               all_ranks(1024, [](int me) { return inter::plan_allgatherv_recvs(me, 1024, arithmetic_1024, false).size(); }));
COLLMICRO_PLAN(alg2_partition_recvs_ordered_2048,
               all_ranks(1024, [](int me) { return inter::plan_allgatherv_recvs(me, 1024, arithmetic_1024, true).size(); }));
// Seed 001 Algorithm 1 at 2048 ranks, p/q = 25/7 (1600 + 448): every rank of A's plan.
COLLMICRO_PLAN(alg1_plan_1600_448,
               all_ranks(1600, [](int me) { return inter::plan_fullduplex_allgather(1600, 448, me, 4096, 4096).sends.size(); }));
// Seed 000 half-duplex ring, 768/256 and 256/768: the global schedule, and every position's plan.
COLLMICRO_PLAN(halfduplex_ring_schedule_768_256, ring::halfduplex_ring_schedule(768, 256).rounds.size());
COLLMICRO_PLAN(halfduplex_ring_schedule_256_768, ring::halfduplex_ring_schedule(256, 768).rounds.size());
COLLMICRO_PLAN(halfduplex_ring_rank_plans_768_256,
               all_ranks(1024, [](int x) { return ring::halfduplex_ring_rank_plan(768, 256, x).rounds.size(); }));
COLLMICRO_PLAN(ring_allgather_rank_plans_768_256,
               all_ranks(1024, [](int x) { return ring::ring_allgather_rank_plan(768, 256, x).rounds.size(); }));
// Seed 000 half-duplex fully connected, 768/256 and 256/768.
COLLMICRO_PLAN(halfduplex_fc_768_256,
               all_ranks(768, [](int me) { return inter::plan_halfduplex_fc(768, 256, true, me).sub_counts.size() + 1; }));
COLLMICRO_PLAN(halfduplex_fc_256_768,
               all_ranks(768, [](int me) { return inter::plan_halfduplex_fc(256, 768, false, me).sub_counts.size() + 1; }));
// Balanced partition of 8 MiB into 2048 parts (the chunk rule).
COLLMICRO_PLAN(balanced_partition_2048, all_ranks(2048, [](int i) {
                 return BalancedPartition(std::size_t{8} << 20, 2048).start(static_cast<std::size_t>(i));
               }));
// Seed 004 schedules: shells 3+7 (1396 neighbours) and Moore d=3 r=3 (342).
COLLMICRO_PLAN(iso_neighborhood_shells_3_7, iso::Neighborhood::parse("shells:d=3,r=3+7").size());
COLLMICRO_PLAN(iso_torus_alltoall_shells_3_7, iso::torus_alltoall_schedule(shells_3_7).rounds());
COLLMICRO_PLAN(iso_direct_alltoall_shells_3_7, iso::direct_alltoall_schedule(shells_3_7).rounds());
COLLMICRO_PLAN(iso_torus_allgather_shells_3_7, iso::torus_allgather_schedule(shells_3_7).rounds());
COLLMICRO_PLAN(iso_torus_alltoall_moore_3_3, iso::torus_alltoall_schedule(moore_3_3).rounds());
COLLMICRO_PLAN(iso_straightforward_moore_3_3, iso::straightforward_schedule(moore_3_3, iso::Pattern::Alltoall).rounds());
