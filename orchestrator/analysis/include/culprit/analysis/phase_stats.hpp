#pragma once
// What a phase "normally" takes: for every phase instance (step, microbatch, layer, name) the
// median duration over the other ranks, and how much noise to tolerate before an excess counts.
// Noise is pooled per phase name over the whole run (robust spread of the relative deviation).
// In a small world a straggler's own deviations are a large share of that pool (half of them at
// two ranks: its peer deviates by the same amount the other way), so there the noise used to
// judge a rank is estimated without its deviations from the peers: from the deviations among
// the other ranks (three ranks or more), or from the step-to-step variation of both ranks' own
// phases (two ranks: the excess is a difference of two durations). Two ranks with too few
// steady steps for that cannot be decided; `noise_note` says so.
// The same for the host gap before each collective call (a late arrival is a phase too).

#include <string>

#include <vector>

#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/timeline.hpp"

namespace culprit::analysis {

struct NoiseModel {
  double sigmas = 5.0;              // an excess counts beyond this many robust sigmas...
  double relative_floor = 0.01;     // ...and beyond this share of the typical duration...
  double step_fraction = 0.005;     // ...and beyond this share of the median step time...
  double absolute_floor_ns = 20e3;  // ...and beyond this.
  double gap_floor_ns = 50e3;       // the least excess counted for a late arrival
  // On one critical path, a divergence smaller than this share of the largest one is not taken
  // as the first divergence (it is noise next to the straggler).
  double dominance = 0.25;
};

// Worlds up to this many ranks judge each rank on noise estimated without it.
inline constexpr int kLeaveOneOutMaxRanks = 8;
// Two ranks need this many steady steps to estimate noise from step-to-step variation.
inline constexpr int kMinSteadySteps = 3;

struct PhaseStats {
  NoiseModel noise;
  // Per event: the peers' median duration of the same phase instance; NaN for events that are
  // not phases (collectives, steps) or have no peer.
  std::vector<double> typical_ns;
  std::vector<double> sigma_relative;  // per name index, pooled over all ranks
  // Per name index and judged rank, the noise estimated without that rank (small worlds only;
  // empty when the pooled figure is used for every rank).
  std::vector<std::vector<double>> sigma_relative_without;
  double step_floor_ns = 0;  // step_fraction * median step time
  // Per collective (Timeline::collectives order) and rank: the host gap between the previous
  // event's end and the call, and the peers' median gap. NaN when the rank had no earlier event.
  std::vector<std::vector<double>> gap_ns;
  std::vector<std::vector<double>> typical_gap_ns;
  double sigma_gap_ns = 0;                   // pooled over all ranks
  std::vector<double> sigma_gap_without_ns;  // per judged rank (small worlds only)
  // Non-empty when the noise cannot be estimated without the straggler (two ranks and fewer
  // than kMinSteadySteps steady steps): divergences are then judged on the pooled noise, which
  // the straggler inflates, and a culprit may be missed.
  std::string noise_note;

  double sigma_for(std::size_t name, int rank) const;
  double sigma_gap_for(int rank) const;

  double excess_ns(const Timeline& timeline, EventIndex e) const;
  double threshold_ns(const Timeline& timeline, EventIndex e) const;
  // Excess beyond noise: a divergence.
  bool diverges(const Timeline& timeline, EventIndex e) const;
  double gap_excess_ns(std::size_t collective, int rank) const;
  double gap_threshold_ns(int rank) const;
  bool gap_diverges(std::size_t collective, int rank) const;
};

PhaseStats phase_stats(const Timeline& timeline, const std::vector<CollectiveTiming>& collectives,
                       const NoiseModel& noise = {});

}  // namespace culprit::analysis
