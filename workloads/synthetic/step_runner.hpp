#pragma once
// Runs warm-up and measured steps: the phases of stepmodel::step_schedule in order, one "step"
// event per step, injected delays and faults where the configuration puts them.

#include "backend.hpp"

namespace synthetic {

// Returns the number of steps run.
int run_steps(Backend& backend, const stepmodel::RunConfig& config,
              const RankInjections& injections);

// Events one rank records: the schedule's phases plus the step event, for every step.
std::int64_t events_per_rank(const stepmodel::RunConfig& config);

}  // namespace synthetic
