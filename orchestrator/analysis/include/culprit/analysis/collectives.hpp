#pragma once
// Arrival, wait and transfer of every collective instance (design.md, "Definitions"):
// arrival a_r = call entry on rank r; last arriver L = argmax a_r; wait_r = a_L - a_r;
// transfer = completion - a_L (data movement, not waiting); skew = a_L - min a_r.

#include <cstdint>
#include <vector>

#include "culprit/analysis/timeline.hpp"

namespace culprit::analysis {

struct CollectiveTiming : CollectiveId {
  std::int64_t bytes = 0;
  std::vector<double> arrival_ns;     // per rank, aligned
  std::vector<double> completion_ns;  // per rank, aligned
  std::vector<double> wait_ns;        // per rank: a_L - a_r
  int last_arriver = -1;
  int runner_up = -1;  // the second-latest arrival
  // False when the last two arrivals are closer than their combined clock uncertainty: the
  // order between them cannot be decided from the clocks.
  bool decided = true;
  // Ranks whose arrival is within clock uncertainty of the last one (always holds L).
  std::vector<int> last_candidates;
  double last_arrival_ns = 0;
  double skew_ns = 0;
  double transfer_ns = 0;    // median over ranks of completion_r - a_L
  double total_wait_ns = 0;  // sum over ranks of wait_r
};

// One entry per Timeline::collectives entry, same order.
std::vector<CollectiveTiming> time_collectives(const Timeline& timeline);

// Per rank and step (index = step number): how long the rank waited at the step's collectives
// for the last arriver (wait_r) with no phase of its own running (compute or host events, merged
// as intervals on the aligned clock). A rank blocked in a collective until the last rank arrives
// is idle: spinning there, it is runnable, so the scheduler may count its time behind another
// process as a wait for a CPU, but that wait delays nobody. A rank that computes while its
// collective is pending (DDP's asynchronous buckets) is not idle; nor is anyone after the last
// arrival (the transfer: a rank parked then delays the completion for all).
std::vector<std::vector<double>> idle_wait_ns_by_step(
    const Timeline& timeline, const std::vector<CollectiveTiming>& collectives);

}  // namespace culprit::analysis
