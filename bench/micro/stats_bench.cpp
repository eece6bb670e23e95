// The per-point statistics of collbench (bench/timing/stats.hpp) on 1e3..1e5 repetition times.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "timing/stats.hpp"

namespace {

std::vector<double> sample_times(std::size_t n) {
  std::mt19937_64 gen(42);
  std::lognormal_distribution<double> dist(-9.0, 0.3);  // ~ 120 us with a heavy right tail
  std::vector<double> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

void BM_TukeyFilter(benchmark::State& state) {
  const auto v = sample_times(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(collbench::tukey_filter(v, 3.0));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_TukeyFilter)->RangeMultiplier(10)->Range(1000, 100000);

void BM_Median(benchmark::State& state) {
  const auto v = sample_times(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(collbench::median(v));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Median)->RangeMultiplier(10)->Range(1000, 100000);

void BM_Summarize(benchmark::State& state) {
  const auto v = sample_times(static_cast<std::size_t>(state.range(0)));
  const std::vector<bool> valid(v.size(), true);
  for (auto _ : state) benchmark::DoNotOptimize(collbench::summarize(v, valid, 3.0));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Summarize)->RangeMultiplier(10)->Range(1000, 100000);

}  // namespace
