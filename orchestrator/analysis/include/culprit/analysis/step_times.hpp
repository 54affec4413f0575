#pragma once
// Step time as the methodology defines it: the interval between global step boundaries, a
// boundary being when the last rank finishes the step on the aligned (rank-0) clock.

#include <cstdint>
#include <string>
#include <vector>

#include "culprit/storage/run_data.hpp"

namespace culprit::analysis {

struct StepTime {
  int step = 0;
  double time_ms = 0;      // boundary(step) - boundary(step - 1)
  double boundary_ns = 0;  // aligned time at which the last rank finished this step
  int last_rank = -1;      // the rank that finished last
  bool warmup = false;
};

// One entry per step that every rank recorded, in step order. The first step's start is the
// latest aligned begin of that step over ranks (all ranks must have started it).
std::vector<StepTime> step_times(const storage::RunData& run);

// The same on a refined clock: `correction_ns[r]` is added to rank r's clock-model time (empty:
// none). Attribution uses this so that its step times and its decomposition share one clock.
std::vector<StepTime> step_times(const storage::RunData& run,
                                 const std::vector<double>& correction_ns);

// Why `run` has no complete steady-state step (step_times gives none past the warm-up), in
// words from its step events: none at all, a rank that numbered several steps alike (every step
// 0), every step within the warm-up, or the first steady step missing on some rank.
std::string no_steady_step_reason(const storage::RunData& run);

// The run's figure: median of the steady-state (non-warm-up) step times; NaN when none.
double median_step_ms(const std::vector<StepTime>& steps);

}  // namespace culprit::analysis
