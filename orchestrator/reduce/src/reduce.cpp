#include "culprit/reduce/reduce.hpp"

#include <algorithm>
#include <stdexcept>

#include "culprit/analysis/stored_runs.hpp"
#include "culprit/errors.hpp"
#include "culprit/manifest/planner.hpp"
#include "culprit/reduce/model_level.hpp"
#include "culprit/stats/compare.hpp"
#include "culprit/storage/run_data.hpp"

namespace culprit::reduce {
namespace {

struct StoredPair {
  storage::RunData baseline;
  storage::RunData candidate;
  std::vector<double> baseline_medians;  // the ok runs of each run's configuration
  std::vector<double> candidate_medians;
};

StoredPair load_pair(storage::Db& store, std::int64_t baseline_run, std::int64_t candidate_run) {
  analysis::check_reducible_pair(store, baseline_run, candidate_run);
  StoredPair pair;
  try {
    pair.baseline = storage::load_run(store, baseline_run);
    pair.candidate = storage::load_run(store, candidate_run);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  pair.baseline_medians = analysis::sibling_run_medians(store, baseline_run);
  pair.candidate_medians = analysis::sibling_run_medians(store, candidate_run);
  return pair;
}

ReducedManifestOptions manifest_options(const ReduceOptions& o, std::int64_t baseline_run,
                                        std::int64_t candidate_run, const StoredPair& pair) {
  ReducedManifestOptions m;
  m.name = !o.name.empty()
               ? o.name
               : "reduce-" + std::to_string(baseline_run) + "-" + std::to_string(candidate_run);
  m.path = o.path;
  m.source_db = o.source_db;
  m.backend = o.reduction.backend;
  if (o.repetitions > 0) m.repetitions = o.repetitions;
  m.margin = o.margin;
  m.level_draws = o.level_draws;
  if (pair.baseline_medians.size() >= 2 && pair.candidate_medians.size() >= 2) {
    m.configuration_shift_ms = stats::compare(pair.baseline_medians, pair.candidate_medians).shift;
    m.baseline_config_runs = static_cast<int>(pair.baseline_medians.size());
    m.candidate_config_runs = static_cast<int>(pair.candidate_medians.size());
  }
  return m;
}

// The resolved configuration of the reduced baseline, as `culprit run` would plan it.
stepmodel::RunConfig baseline_config(const Reduction& r, const ReducedManifestOptions& o) {
  return manifest::make_plan(reduced_manifest(r, o).manifest).configs.front().run;
}

// Enough runs that the control decides `equivalent` against the model's own noise, at the
// reduced experiment's rank count.
int auto_repetitions(const Reduction& r, stepmodel::RunConfig model, const ModelLevel& level,
                     const ReduceOptions& o) {
  model.ranks = r.ranks;
  const ModelLevel at_ranks =
      r.ranks == r.baseline.ranks ? level : simulated_level(model, o.level_draws);
  return std::max(
      repetitions_for(at_ranks.run_cv, o.margin),
      repetitions_for_excess(at_ranks.step_sigma_ms * r.model_scale,
                             static_cast<int>(r.excess_steps.size()), r.step_excess_ms));
}

}  // namespace

ReducedExperiment reduce_pair(storage::Db& store, std::int64_t baseline_run,
                              std::int64_t candidate_run, const ReduceOptions& options) {
  const StoredPair pair = load_pair(store, baseline_run, candidate_run);
  ReducedExperiment out;
  Reduction& r = out.reduction;
  r = reduce_runs(pair.baseline, pair.candidate, options.reduction, pair.baseline_medians);
  ReducedManifestOptions manifest = manifest_options(options, baseline_run, candidate_run, pair);
  // The model's level: its baseline simulated at the job's own rank count, scaled onto the
  // measured median (model_level.hpp).
  stepmodel::RunConfig model = baseline_config(r, manifest);
  model.ranks = r.baseline.ranks;
  const ModelLevel level = simulated_level(model, options.level_draws);
  set_model_level(r, level.median_ms);
  // At the reduced experiment's rank count: fewer ranks leave a delayed rank less slack.
  stepmodel::RunConfig scaled = baseline_config(r, manifest);
  scaled.ranks = r.ranks;
  fit_capped_hiccups(r, scaled, options.fit_draws);
  if (options.repetitions == 0) manifest.repetitions = auto_repetitions(r, model, level, options);
  out.reduced = reduced_manifest(r, manifest);
  // What `culprit run` will do with the file: the same planner's checks, on the same value.
  (void)manifest::make_plan(out.reduced.manifest);
  return out;
}

}  // namespace culprit::reduce
