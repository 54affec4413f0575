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
// plain run); `block`: runs added per look (<= 0: repetitions); `alpha` is the overall two-sided
// level.
LookAlpha alpha_per_look(const StoredExperiment& experiment, int repetitions, int max_repetitions,
                         int block, double alpha);

}  // namespace culprit::stats
