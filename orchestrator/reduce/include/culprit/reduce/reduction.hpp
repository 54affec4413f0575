#pragma once
// From a big job's two runs to a small controlled experiment (docs/methodology.md,
// "Reduction"): the baseline run calibrates a model of the step; blind attribution of the
// candidate against the baseline names the causes; each cause becomes a delay to inject on
// purpose. Running the reduced experiment then tells how much of the original shift each cause
// reproduces; what it does not reproduce stays labelled, never assigned.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "culprit/analysis/explain.hpp"
#include "culprit/reduce/calibration.hpp"
#include "stepmodel/config.hpp"

namespace culprit::reduce {

struct Cause {
  std::string kind;  // "straggler" | "typical_shift"
  int rank = -1;     // straggler: the rank (after scaling down); -1 for a typical shift
  int original_rank = -1;
  std::string phase;
  int layer = -1;
  double component_ms = 0;                        // explain's component for it in the original pair
  std::vector<stepmodel::DelayInjection> delays;  // what reproduces it
  std::string where_from;  // how the delays were measured, for the manifest's comment
  // Hiccup steps (positions) where the phase's excess exceeded the step's own growth over the
  // median step, and that growth: the delays there are set to reproduce the growth
  // (model_level.hpp, fit_capped_hiccups).
  std::map<int, double> capped_growth_ms;
};

struct ReductionOptions {
  int ranks = 0;                // 0: the baseline run's rank count
  std::string backend = "sim";  // sim | cpu
  double min_share = 0.02;      // a component counts as a cause from this share of |delta|
};

struct Reduction {
  Calibration baseline;
  analysis::Explanation original;  // candidate run vs baseline run
  std::vector<Cause> causes;
  std::vector<std::string> not_reproduced;  // components no delay can reproduce, and why
  int ranks = 0;                            // of the reduced experiment
  double run_cv = 0;                        // run-to-run noise of the baseline configuration
  int run_cv_runs = 0;                      // runs behind run_cv (0: unknown, set to 0)
  // The baseline run is one draw of its configuration's run-to-run drift: its durations are
  // scaled by (median of the configuration's run medians) / (this run's median), 1 when the
  // configuration has fewer than 3 runs.
  double level_scale = 1;
  // The simulated model's own median step before set_model_level (0: not simulated), and the
  // factor that put it on the baseline's level (model_level.hpp).
  double model_median_ms = 0;
  // Causes injected in a few steps only (hiccups): those steps (positions) and the candidate's
  // mean step excess there over its median step, the figure the reduced runs must reproduce
  // (a hiccup moves no median). Empty / 0 when every cause is in most steps.
  std::vector<int> excess_steps;
  double step_excess_ms = 0;
  double model_scale = 1;
  std::vector<std::string> notes;
};

// Throws culprit::UsageError when the pair cannot be reduced: different rank counts, too few
// steady steps, or no cause beyond noise ("nothing to reduce").
// `baseline_config_medians`: the ok run medians of the baseline run's configuration (the run
// itself included), for run_cv and level_scale; may be just the one run.
Reduction reduce_runs(const storage::RunData& baseline, const storage::RunData& candidate,
                      const ReductionOptions& options,
                      const std::vector<double>& baseline_config_medians);

// One configuration of the reduced experiment against its baseline, set against the original.
struct Reproduced {
  std::string label;
  double delta_ms = 0;      // reduced candidate - reduced baseline (explain's delta)
  double share = 0;         // delta_ms / original delta
  double remainder_ms = 0;  // original delta - delta_ms: not reproduced, labelled as such
};

// `original_delta_ms`: the pair's median step change, as the manifest's [reduced_from] states it.
std::vector<Reproduced> reproduction(const analysis::StoredExplanations& reduced,
                                     double original_delta_ms);

}  // namespace culprit::reduce
