#include "settings_record.hpp"

#include "culprit/stats/sampling.hpp"

namespace culprit::launch {
namespace {

storage::ReducedFromRecord reduced_from_record(const manifest::ReducedFrom& from) {
  storage::ReducedFromRecord r;
  r.baseline_run = from.baseline_run;
  r.candidate_run = from.candidate_run;
  r.baseline_median_ms = from.baseline_median_ms;
  r.candidate_median_ms = from.candidate_median_ms;
  r.delta_ms = from.delta_ms;
  r.shift_ms = from.shift_ms;
  r.shift_runs = from.shift_runs;
  r.db = from.db;
  r.excess_steps = from.excess_steps;
  r.step_excess_ms = from.step_excess_ms;
  return r;
}

}  // namespace

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
  if (plan.reduced_from) record.reduced_from = reduced_from_record(*plan.reduced_from);
  return record;
}

}  // namespace culprit::launch
