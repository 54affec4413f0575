#pragma once
// A hiccup (a cause that hits a few steps only) moves no median step: what a reduced experiment
// must reproduce of it is the step excess in the steps it hits (docs/methodology.md,
// "Reduction"). Measured here on a stored reduced experiment, per configuration.

#include <string>
#include <vector>

#include "culprit/storage/db.hpp"

namespace culprit::reduce {

struct StepExcess {
  std::string label;
  double excess_ms = 0;  // median over the ok runs of each run's mean excess in the steps
  int runs = 0;
};

// Every configuration of `experiment` (the baseline first): for each ok run, the mean over
// `steps` (step numbers of the reduced run, its positions) of the step time minus the run's
// median steady step; the median of that over the runs.
std::vector<StepExcess> step_excess(storage::Db& store, const std::string& experiment,
                                    const std::vector<int>& steps);

}  // namespace culprit::reduce
