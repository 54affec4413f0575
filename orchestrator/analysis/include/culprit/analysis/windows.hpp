#pragma once
// The stretch of a rank's timeline that decides when it arrives at a collective: from its
// previous synchronization point (where it resumed after calling the previous collective) to
// its call of this one. With blocking collectives the rank resumed at the previous completion;
// with overlapped ones it resumed right after issuing it, and lateness carries over.

#include <cstddef>
#include <vector>

#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/phase_stats.hpp"
#include "culprit/analysis/timeline.hpp"

namespace culprit::analysis {

struct ArrivalWindow {
  int rank = 0;
  // Positions in Timeline::by_begin[rank]: events in [first, arrival) lie in the window.
  std::int32_t first = 0;
  std::int32_t arrival = 0;
  double start_ns = 0;  // aligned time the rank resumed after the previous collective
  int previous = -1;    // the previous collective (index), -1 for the first one
};

ArrivalWindow arrival_window(const Timeline& timeline, std::size_t collective, int rank);

// The divergent excess inside a rank's window: phases beyond noise plus a late call.
double divergent_excess_ns(const Timeline& timeline, const PhaseStats& stats,
                           std::size_t collective, const ArrivalWindow& window);

// Per collective, the rank the delay came from: the last arriver, or, when the clocks cannot
// order the latest arrivals, the candidate whose window holds the most divergent excess.
std::vector<int> critical_arrivers(const Timeline& timeline,
                                   const std::vector<CollectiveTiming>& collectives,
                                   const PhaseStats& stats);

}  // namespace culprit::analysis
