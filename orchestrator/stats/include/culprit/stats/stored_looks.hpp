#pragma once
// The level each comparison of a stored experiment is judged at: the overall alpha split over
// the looks adaptive sampling took (what `culprit compare` uses).

#include "culprit/stats/stored.hpp"

namespace culprit::stats {

struct LookAlpha {
  int looks = 1;        // K: the looks the stored runs show
  double alpha = 0.05;  // alpha / K
};

// The looks the stored runs show, not the ones max_repetitions would allow: `culprit run` makes
// `repetitions` runs per configuration in one look; only bisect / verdict add runs in blocks.
// K = the planned looks up to the most runs any configuration of `experiment` has (1 for a
// plain run); `alpha` is the overall two-sided level.
LookAlpha alpha_per_look(const StoredExperiment& experiment, int repetitions, int max_repetitions,
                         double alpha);

// Every look adaptive sampling planned from `repetitions` up to `max_repetitions` in blocks of
// `repetitions` (stats::planned_looks): the split of an experiment `culprit run` sampled
// adaptively, whatever look it stopped at.
LookAlpha alpha_over_planned_looks(int repetitions, int max_repetitions, double alpha);

}  // namespace culprit::stats
