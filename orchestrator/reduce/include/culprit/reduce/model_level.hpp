#pragma once
// The reduced model's level (docs/methodology.md, "Reduction"): the calibrated schedule is a
// sum of per-phase medians, and its simulated step adds the waiting its noise causes at each
// collective; neither is the measured median step exactly. The simulator is scale-invariant
// (every duration, gap and transfer scaled by f scales every step by f), so one factor, the
// measured median over the model's simulated median, puts the model's level on the job's.

#include "culprit/reduce/reduction.hpp"
#include "stepmodel/config.hpp"

namespace culprit::reduce {

struct ModelLevel {
  double median_ms = 0;      // median over the draws of each simulated run's median steady step
  double run_cv = 0;         // robust CV of those run medians: the model's run-to-run noise
  double step_sigma_ms = 0;  // robust sigma of a steady step about its run's median
};

// `draws` independent simulated runs (seeds 1..draws) of `model`, the reduced baseline
// configuration (sim), injections removed.
ModelLevel simulated_level(stepmodel::RunConfig model, int draws);

// The hiccup delays capped at a step's growth (Cause::capped_growth_ms): the model's rank has
// slack the job's step did not (a delay first fills the time the rank would have waited), so
// each such step's delays are raised until `model` (the baseline configuration at the
// reduced experiment's rank count) with every hiccup injected grows by the measured amount there,
// median over `draws` seeds, two corrections. Delays not capped stay as measured.
void fit_capped_hiccups(Reduction& r, stepmodel::RunConfig model, int draws);

// Repetitions per configuration for which a shift of 0 decides `equivalent` at `margin`
// (relative): the shift's CI half-width, about 3.1 run CVs / sqrt(n) for two arms of n runs (4
// here: the CV is itself estimated from a few simulated runs), within half the margin; from 8 (the
// fewest that give a shift CI) to 60.
int repetitions_for(double run_cv, double margin);

// Repetitions for which the median over runs of a run's mean excess in `hit_steps` steps is
// within 4 % of `excess_ms` (about 2.5 step sigmas / sqrt(hit_steps x n)); 8 to 60.
int repetitions_for_excess(double step_sigma_ms, int hit_steps, double excess_ms);

// Scales every calibrated phase (compute, gap, collective transfer) by target / model_ms,
// target being the baseline level reduce_runs aimed at; records the factor in
// r.model_scale and r.model_median_ms. The injected delays are measured excess and stay as they
// are.
void set_model_level(Reduction& r, double model_ms);

}  // namespace culprit::reduce
