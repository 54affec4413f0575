#pragma once
// A rough cost model, for planning only: the predicted step time from the step model and the
// wall time of one run including the launch.

#include "stepmodel/config.hpp"

namespace culprit::manifest::detail {

// Seconds one step is expected to take (the simulated time for backend sim).
double predicted_step_seconds(const stepmodel::RunConfig& run, unsigned host_cores);

// Wall-clock seconds of one run: launch overhead + (warmup_steps + steps) steps.
double estimated_run_seconds(const stepmodel::RunConfig& run, unsigned host_cores);

}  // namespace culprit::manifest::detail
