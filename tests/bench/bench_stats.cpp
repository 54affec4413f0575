// Cost of one comparison (what `culprit compare` and adaptive sampling pay per look) as the
// number of runs per side grows: exact distributions up to m*n <= 2500, normal above.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "culprit/stats/compare.hpp"
#include "culprit/stats/summary.hpp"

namespace {

std::vector<double> sample(std::mt19937_64& rng, int n, double mean) {
  std::normal_distribution<double> dist(mean, mean * 0.01);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (double& x : out) x = dist(rng);
  return out;
}

void BM_Compare(benchmark::State& state) {
  std::mt19937_64 rng(1);
  const int n = static_cast<int>(state.range(0));
  const auto a = sample(rng, n, 410);
  const auto b = sample(rng, n, 414);
  for (auto _ : state) {
    benchmark::DoNotOptimize(culprit::stats::compare(a, b, 0.05, 0.02));
  }
  state.SetLabel(n * n <= 2500 ? "exact" : "normal");
}
BENCHMARK(BM_Compare)
    ->Arg(5)
    ->Arg(10)
    ->Arg(20)
    ->Arg(30)
    ->Arg(50)
    ->Arg(51)
    ->Arg(100)
    ->Arg(200)
    ->Unit(benchmark::kMicrosecond);

// The exact path forced at sizes where the default would switch to the normal approximation,
// with tied (rounded) values so the tie-aware distribution is exercised.
void BM_CompareExactForced(benchmark::State& state) {
  std::mt19937_64 rng(2);
  const int n = static_cast<int>(state.range(0));
  auto a = sample(rng, n, 410);
  auto b = sample(rng, n, 414);
  for (double& x : a) x = static_cast<double>(static_cast<long>(x));
  for (double& x : b) x = static_cast<double>(static_cast<long>(x));
  culprit::stats::CompareOptions options;
  options.exact_max_pairs = 1L << 40;
  for (auto _ : state) {
    benchmark::DoNotOptimize(culprit::stats::compare(a, b, options));
  }
}
BENCHMARK(BM_CompareExactForced)->Arg(20)->Arg(50)->Arg(100)->Unit(benchmark::kMillisecond);

void BM_Summarize(benchmark::State& state) {
  std::mt19937_64 rng(3);
  const auto a = sample(rng, static_cast<int>(state.range(0)), 410);
  for (auto _ : state) benchmark::DoNotOptimize(culprit::stats::summarize(a));
}
BENCHMARK(BM_Summarize)->Arg(10)->Arg(200)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
