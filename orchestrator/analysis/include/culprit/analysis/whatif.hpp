#pragma once
// What-if: the step times had one rank's phases taken the peers' median. The run is replayed
// over its collective dependency graph: every rank keeps its measured order of events and the
// host gaps between them; a phase lasts its measured time (or, on the blamed rank, the peers'
// median, and a late call waits only the peers' median gap); a collective completes on each rank
// its measured transfer after the replayed last arrival; anything that followed a completion on
// a rank waits for the replayed completion, and a rank blocked in the call or idle until the
// completion (an asynchronous collective's wait, no phase open) resumes at it.

#include <vector>

#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/phase_stats.hpp"
#include "culprit/analysis/timeline.hpp"

namespace culprit::analysis {

struct WhatIf {
  int rank = -1;
  bool complete = false;        // false when the replay could not order the events
  std::vector<double> step_ms;  // replayed step time, per Timeline::steps entry
  double measured_median_ms = 0;
  double whatif_median_ms = 0;
  double saved_ms() const { return measured_median_ms - whatif_median_ms; }
};

WhatIf what_if_rank_typical(const Timeline& timeline,
                            const std::vector<CollectiveTiming>& collectives,
                            const PhaseStats& stats, int rank);

}  // namespace culprit::analysis
