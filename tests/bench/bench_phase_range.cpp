// Cost of culprit-step's NVTX range per phase instance (synthetic::PhaseRange) over the phases of
// the reference scenario's step (experiments/reference-64.toml's model); bench_stepclock gives
// the recorded region each instance costs beside it. Prints figures; never gates CI.
// Run: bench_phase_range                                  no tool: a branch per instance
//      NVTX_INJECTION64_PATH=/nonexistent bench_phase_range  the name built, push and pop called
//                                                        (NVTX found no tool: its no-op path)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "backend.hpp"
#include "phase_nvtx.hpp"
#include "stepmodel/schedule.hpp"

namespace {

constexpr int kSteps = 2'000;
constexpr int kRepetitions = 7;

// experiments/reference-64.toml's [baseline.model]: 8 layers, 4 microbatches, 4 buckets.
stepmodel::ModelConfig reference_model() {
  stepmodel::ModelConfig m;
  m.layers = 8;
  m.microbatches = 4;
  m.buckets = 4;
  return m;
}

double ns_per_instance(const std::vector<stepmodel::Phase>& schedule) {
  std::vector<synthetic::PhaseWork> work(schedule.size());
  for (std::size_t i = 0; i < schedule.size(); ++i) work[i].phase = &schedule[i];
  const auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < kSteps; ++step) {
    for (synthetic::PhaseWork& w : work) {
      w.step = step;
      const synthetic::PhaseRange range(w);
    }
  }
  const std::chrono::duration<double, std::nano> spent = std::chrono::steady_clock::now() - start;
  return spent.count() / static_cast<double>(kSteps * schedule.size());
}

}  // namespace

int main() {
  const std::vector<stepmodel::Phase> schedule = stepmodel::step_schedule(reference_model());
  std::vector<double> runs;
  for (int r = 0; r < kRepetitions; ++r) runs.push_back(ns_per_instance(schedule));
  std::sort(runs.begin(), runs.end());
  std::printf("NVTX range per phase instance (%d x %d steps of %zu phases)\n", kRepetitions, kSteps,
              schedule.size());
  std::printf("  compiled in:                  %s\n",
              synthetic::phase_ranges_compiled() ? "yes" : "no");
  const char* tool = std::getenv("NVTX_INJECTION64_PATH");
  std::printf("  NVTX_INJECTION64_PATH:        %s\n", tool != nullptr ? tool : "(unset)");
  std::printf("  median per instance:          %7.1f ns  (best %.1f, worst %.1f)\n",
              runs[runs.size() / 2], runs.front(), runs.back());
  std::printf("  per step of the reference:    %7.1f us\n",
              runs[runs.size() / 2] * static_cast<double>(schedule.size()) / 1e3);
  return 0;
}
