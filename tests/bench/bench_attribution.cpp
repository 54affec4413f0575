// Attribution throughput: 64 ranks x 200 steps (~1.3 M events) of a synthetic run with one
// straggler and jitter, attributed end to end. Prints the time and events/s (not a test).
#include <chrono>
#include <cstdio>

#include "analysis/synthetic_run.hpp"
#include "culprit/analysis/attribution.hpp"

int main() {
  using namespace culprit;
  testing::SyntheticSpec spec = testing::sleep_spec(64, 200, 2, 16, 2, 4);
  spec.jitter_cv = 0.02;
  spec.delays.push_back(testing::Delay{63, "gemm.fwd", 5, 1, 20});
  spec.clocks.push_back(testing::SkewedClock{17, 500, 100, 0.3, 1});
  const storage::RunData run = testing::synthesize(spec);

  double best_s = 1e30;
  analysis::RunAttribution result;
  for (int repeat = 0; repeat < 3; ++repeat) {
    const auto start = std::chrono::steady_clock::now();
    result = analysis::attribute_run(run);
    const auto stop = std::chrono::steady_clock::now();
    best_s = std::min(best_s, std::chrono::duration<double>(stop - start).count());
  }
  const double events = static_cast<double>(run.events.size());
  std::printf(
      "attribution: %d ranks x %d steps, %.0f events in %.3f s (best of 3) = %.2f M events/s\n",
      run.ranks, spec.steps, events, best_s, events / best_s / 1e6);
  std::printf("culprit: rank %d %s layer %d microbatch %d, excess %.2f ms in %d/%d steps\n",
              result.culprit.rank, result.culprit.phase.c_str(), result.culprit.layer,
              result.culprit.microbatch, result.culprit.excess_ms, result.culprit.steps_blamed,
              result.culprit.steady_steps);
  return result.culprit.rank == 63 ? 0 : 1;
}
