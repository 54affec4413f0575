#pragma once
// Delay costs, Scalasca-style (design.md, "Definitions"). At each collective the waiting time of
// all ranks, W = sum of waits, is charged to what made the last arriver late: its lateness
// lambda (arrival minus the median arrival) splits into a part inherited from the previous
// synchronization point (it was already late there: charged like that collective, so costs flow
// back along chains of waits) and its own part, shared over the divergent phases in its window
// in proportion to their excess with a scale <= 1. Own lateness no divergence accounts for is
// charged to the rank as unexplained. Every nanosecond of waiting is charged exactly once:
// sum of costs = sum of waiting time, which `conservation_error_ns` checks.

#include <string>
#include <vector>

#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/phase_stats.hpp"
#include "culprit/analysis/timeline.hpp"

namespace culprit::analysis {

struct DelayCost {
  int rank = -1;
  std::string phase;  // empty: lateness of the rank that no divergence explains
  int layer = -1;
  int microbatch = -1;
  int step = -1;
  bool late_call = false;  // the excess was a late call of the collective `phase`
  double cost_ns = 0;
};

struct DelayCosts {
  std::vector<DelayCost>
      costs;  // one per cause (phase instance or unexplained rank), largest first
  double total_cost_ns = 0;
  double total_wait_ns = 0;
  double conservation_error_ns() const { return total_cost_ns - total_wait_ns; }
  // Costs summed over steps and microbatches per (rank, phase, layer), largest first.
  std::vector<DelayCost> by_rank_phase_layer() const;
};

// Only collectives whose index satisfies `include` (default: all) are charged; chains still
// pass through the others.
DelayCosts delay_costs(const Timeline& timeline, const std::vector<CollectiveTiming>& collectives,
                       const PhaseStats& stats, const std::vector<int>& critical_arrivers,
                       const std::vector<bool>& include = {});

}  // namespace culprit::analysis
