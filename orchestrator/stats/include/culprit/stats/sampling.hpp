#pragma once
// Adaptive sampling: pure decision logic the launcher calls after each look. Runs are added
// in interleaved balanced blocks while a requested comparison is inconclusive, up to
// max_repetitions; alpha is split evenly over the planned looks (Bonferroni), so the overall
// false-verdict rate stays <= alpha however many looks are actually taken.

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "culprit/stats/compare.hpp"

namespace culprit::stats {

struct SamplingPlan {
  int repetitions = 5;       // runs per configuration at the first look
  int max_repetitions = 20;  // cap per configuration
  int block = 0;             // runs added per configuration per look; <= 0: = repetitions
  double alpha = 0.05;       // overall two-sided alpha
  double margin = 0.02;
  long exact_max_pairs = 2500;
  // The runs were made in pairs (baseline[i], candidate[i]) of one interleaved block each:
  // judged by compare_paired (the load of the moment cancels in each pair's ratio).
  bool paired = false;
  // When > 0, the level of every look instead of alpha / planned_looks: a calibrated
  // group-sequential boundary (sequential.hpp) for plans whose looks it was computed for.
  double look_level = 0;
};

// K = 1 + ceil((max_repetitions - repetitions) / block) (1 when max <= repetitions).
int planned_looks(const SamplingPlan& plan);
// alpha / K (or plan.look_level when set): every look, the first included, is judged at it.
double look_alpha(const SamplingPlan& plan);
// Runs per configuration at each planned look: repetitions, + block ..., max_repetitions.
std::vector<int> look_sizes(const SamplingPlan& plan);
// Effective block size (plan.block, or repetitions when block <= 0).
int block_size(const SamplingPlan& plan);

struct SamplingDecision {
  bool stop = true;
  int add_per_configuration = 0;  // runs to add to each compared configuration when !stop
  int look = 1;                   // 1-based index of this look
  int planned_looks = 1;
  double look_alpha = 0.05;
  Comparison comparison;  // judged at look_alpha
  std::string reason;     // "verdict reached", "at max_repetitions", "inconclusive: adding runs"
};

// Decides after a look: stop with the comparison's verdict when it is not inconclusive or
// when a side already has max_repetitions successful runs; otherwise add
// min(block, max_repetitions - max(n_a, n_b)) runs per configuration.
// Throws culprit::UsageError for an invalid plan (repetitions < 1, alpha outside (0, 1)...).
SamplingDecision decide_sampling(std::span<const double> baseline,
                                 std::span<const double> candidate, const SamplingPlan& plan);

// The one adaptive-sampling loop (bisection's endpoints and confirmation, `culprit verdict`):
// `at(n)` returns n runs per side (making them as needed), decide_sampling judges the look,
// and runs are added until it stops or `stop_early(decision)` returns true.
struct SampledPair {
  std::vector<double> baseline;
  std::vector<double> candidate;
};
struct AdaptiveJudgement {
  Comparison comparison;
  int n = 0;  // runs per side at the deciding look
};
template <typename At, typename StopEarly>
AdaptiveJudgement sample_adaptively(At&& at, const SamplingPlan& plan, StopEarly&& stop_early) {
  int n = plan.repetitions;
  while (true) {
    const SampledPair s = at(n);
    const SamplingDecision d = decide_sampling(s.baseline, s.candidate, plan);
    if (d.stop || stop_early(d)) return {d.comparison, n};
    n += d.add_per_configuration;
  }
}
template <typename At>
AdaptiveJudgement sample_adaptively(At&& at, const SamplingPlan& plan) {
  return sample_adaptively(std::forward<At>(at), plan,
                           [](const SamplingDecision&) { return false; });
}

}  // namespace culprit::stats
