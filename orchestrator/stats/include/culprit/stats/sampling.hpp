#pragma once
// Adaptive sampling: pure decision logic the launcher calls after each look. Runs are added
// in interleaved balanced blocks while a requested comparison is inconclusive, up to
// max_repetitions; alpha is split evenly over the planned looks (Bonferroni), so the overall
// false-verdict rate stays <= alpha however many looks are actually taken.

#include <span>
#include <string>

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
};

// K = 1 + ceil((max_repetitions - repetitions) / block) (1 when max <= repetitions).
int planned_looks(const SamplingPlan& plan);
// alpha / K: every look, the first included, is judged at this level.
double look_alpha(const SamplingPlan& plan);
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

}  // namespace culprit::stats
