#pragma once
// Where in an ordered list of versions the run time stepped up: a posterior over the first bad
// version under a one-step model (docs/methodology.md, "Bisection: the model"). Pure: no I/O.
//
// Runs are modelled on the log scale, y = log(run median) = level(side) + drift(run) + e, with
// two levels (before / after the step, the later one not lower), a Student-t error e whose
// quartiles are those of the within-version spread (robust; its degrees of freedom averaged over
// a grid by how well each explains the runs), and optionally a drift term estimated
// from runs made next to each other in time (so a load spike that hits several neighbouring
// runs is not mistaken for a step). Both levels are estimated from every run of every version;
// they are integrated out (Laplace), and a "no step" model competes, so a flat range keeps its
// mass there.

#include <vector>

namespace culprit::stats {

struct TimedRun {
  double value = 0;  // run median (> 0)
  long order = 0;    // when it ran, relative to the other runs (larger = later)
};

struct ChangePointOptions {
  // The Student-t tails the runs' errors may have, equally likely a priori: the posterior is
  // the average of each one's, weighted by its marginal likelihood, so clean runs are judged
  // near-normally and runs with outliers or load bursts robustly. One value: that t alone.
  std::vector<double> degrees_of_freedom = {2, 4, 8, 16, 32, 64, 128};
  double prior_no_step = 0.5;  // prior probability that no version steps up
  double shift_scale = 0.10;   // half-normal prior scale of the relative step
  // Runs to either side in time whose residuals estimate the drift of a run; 0: no drift term.
  int drift_window = 0;
  int drift_min_runs = 4;        // versions with fewer runs do not inform the drift
  double drift_threshold = 1.5;  // drift below this many sigmas is left alone
};

struct ChangePointPosterior {
  // probability[k]: P(version k is the first bad one), k = 1 .. versions-1; probability[0] = 0.
  std::vector<double> probability;
  double no_step = 0;             // P(no version steps up)
  double sigma = 0;               // robust scale of the log run medians
  double degrees_of_freedom = 0;  // the listed tails that explain the runs best
  int most_likely = -1;
  double relative_shift = 0;  // estimated step at most_likely (exp(level difference) - 1)
  // P(first bad <= k), renormalized to "there is a step": what a run of version k would split.
  std::vector<double> cumulative;
};

// runs[v]: the runs of version v (empty when not measured or untestable). Needs runs of the
// first and the last version. Throws culprit::UsageError on non-positive or non-finite values.
ChangePointPosterior change_point_posterior(const std::vector<std::vector<TimedRun>>& runs,
                                            const ChangePointOptions& options = {});

// Relative CV (sigma of log values) below which `runs` cannot be told apart from noise: the
// smallest relative step detectable at `alpha` with power 0.8 from `n` runs per side.
double minimum_detectable_step(double sigma, int n, double alpha);

// The upper quartile (0.75 quantile) of the standard Student-t with `nu` > 0 degrees of freedom:
// the posterior scales its t likelihood so that the t's quartiles are the runs'.
double student_t_upper_quartile(double nu);

}  // namespace culprit::stats
