#include "culprit/stats/stored_looks.hpp"

#include <algorithm>

#include "culprit/stats/sampling.hpp"

namespace culprit::stats {

LookAlpha alpha_per_look(const StoredExperiment& experiment, int repetitions, int max_repetitions,
                         int block, double alpha) {
  int most = 0;
  for (const auto& c : experiment.configs) {
    most = std::max(most, static_cast<int>(c.medians_ms.size()));
  }
  // The looks the stored runs show: the cap is the most runs a configuration has.
  return alpha_over_planned_looks(
      repetitions, std::min(most, std::max(max_repetitions, repetitions)), block, alpha);
}

LookAlpha alpha_over_planned_looks(int repetitions, int max_repetitions, int block, double alpha) {
  SamplingPlan plan;
  plan.repetitions = std::max(repetitions, 1);
  plan.max_repetitions = std::max(max_repetitions, repetitions);
  plan.block = block;
  plan.alpha = alpha;
  LookAlpha result;
  result.looks = planned_looks(plan);
  result.alpha = alpha / result.looks;
  return result;
}

}  // namespace culprit::stats
