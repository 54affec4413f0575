#include "culprit/stats/sampling.hpp"

#include <algorithm>
#include <string>

#include "culprit/errors.hpp"
#include "input_checks.hpp"

namespace culprit::stats {
namespace {

void require_valid(const SamplingPlan& plan) {
  if (plan.repetitions < 1) {
    throw UsageError("stats: repetitions is " + std::to_string(plan.repetitions) +
                     "; set [experiment] repetitions >= 1");
  }
  detail::require_alpha(plan.alpha, "adaptive sampling");
}

int ceil_div(int numerator, int denominator) {
  return (numerator + denominator - 1) / denominator;
}

}  // namespace

int block_size(const SamplingPlan& plan) {
  return plan.block > 0 ? plan.block : std::max(plan.repetitions, 1);
}

int planned_looks(const SamplingPlan& plan) {
  return static_cast<int>(look_sizes(plan).size());
}

double look_alpha(const SamplingPlan& plan) {
  return plan.look_level > 0 ? plan.look_level : plan.alpha / planned_looks(plan);
}

std::vector<int> look_sizes(const SamplingPlan& plan) {
  std::vector<int> sizes;
  const int cap = std::max(plan.max_repetitions, plan.repetitions);
  for (int n = plan.repetitions; n < cap; n += block_size(plan)) sizes.push_back(n);
  sizes.push_back(cap);
  return sizes;
}

SamplingDecision decide_sampling(std::span<const double> baseline,
                                 std::span<const double> candidate, const SamplingPlan& plan) {
  require_valid(plan);
  SamplingDecision d;
  d.planned_looks = planned_looks(plan);
  d.look_alpha = look_alpha(plan);

  CompareOptions options;
  options.alpha = d.look_alpha;
  options.margin = plan.margin;
  options.exact_max_pairs = plan.exact_max_pairs;
  d.comparison = plan.paired && baseline.size() == candidate.size()
                     ? compare_paired(baseline, candidate, options)
                     : compare(baseline, candidate, options);

  const int block = block_size(plan);
  const int largest = static_cast<int>(std::max(baseline.size(), candidate.size()));
  const int cap = std::max(plan.max_repetitions, plan.repetitions);
  d.look =
      std::clamp(1 + ceil_div(std::max(largest - plan.repetitions, 0), block), 1, d.planned_looks);

  if (d.comparison.verdict != Verdict::kInconclusive) {
    d.reason = "verdict reached";
    return d;
  }
  if (largest >= cap) {
    d.reason = "at max_repetitions";
    return d;
  }
  d.stop = false;
  d.add_per_configuration = std::min(block, cap - largest);
  d.reason = "inconclusive: adding runs";
  return d;
}

}  // namespace culprit::stats
