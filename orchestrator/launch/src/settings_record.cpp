#include "settings_record.hpp"

#include "culprit/stats/sampling.hpp"

namespace culprit::launch {
storage::ExperimentSettingsRecord settings_record(const manifest::Plan& plan) {
  const manifest::ExperimentSettings& s = plan.settings;
  storage::ExperimentSettingsRecord record;
  record.alpha = s.alpha;
  record.margin = s.margin;
  record.repetitions = s.repetitions;
  record.max_repetitions = s.max_repetitions;
  record.sampling = s.sampling;
  stats::SamplingPlan sampling;
  sampling.repetitions = s.repetitions;
  sampling.max_repetitions = s.max_repetitions;
  sampling.alpha = s.alpha;
  sampling.margin = s.margin;
  record.block = stats::block_size(sampling);
  record.looks = stats::planned_looks(sampling);
  record.reduced_from = plan.reduced_from;  // one type: stored as the manifest said it
  return record;
}

}  // namespace culprit::launch
