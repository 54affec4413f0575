#pragma once
// Ground-truth figures of a simulated run, taken from the simulator's true time line rather
// than from the run file: used to calibrate scenarios (docs/simulator.md) and by tests to
// check what the analysis must recover. Not an analysis: attribution never sees these.

#include <vector>

#include "sim/simulator.hpp"
#include "stepmodel/config.hpp"

namespace sim {

struct RunSummary {
  std::vector<double> step_ms;  // steady-state step times (warm-up steps excluded)
  double median_step_ms = 0.0;
  // Share of steady-state time in which a compute phase (GEMM or optimizer) runs, averaged
  // over ranks: what a sampled "GPU activity" figure converges to.
  double compute_time_share = 0.0;
  // The same, sampled: share of samples (every sample_period_s of true time, starting one
  // period into the steady state) that fall inside a compute phase, averaged over ranks.
  double sampled_compute_activity = 0.0;
  int samples_per_rank = 0;
};

RunSummary summarize(const SimulatedRun& run, const stepmodel::RunConfig& config,
                     double sample_period_s = 1.0);

}  // namespace sim
