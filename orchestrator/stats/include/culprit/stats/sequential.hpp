#pragma once
// A group-sequential boundary for the unpaired Hodges–Lehmann / Mann–Whitney test, where the
// same two samples are judged again as they grow (bisection's confirmation of a pair, and
// `culprit verdict`).
//
// Alpha / looks (Bonferroni) is valid but wasteful: the looks share most of their runs, so
// their rejections are strongly correlated. Under the null (both sides drawn from one
// continuous distribution) every look depends on the ranks only, and the ranks are
// exchangeable whatever the distribution, so the joint law of the looks is distribution-free
// and a Monte Carlo of uniform draws calibrates it up to simulation error (about 4 % of the
// target, one standard error).

#include <span>

#include "culprit/stats/sampling.hpp"

namespace culprit::stats {

struct SequentialBoundary {
  // The one two-sided level at which every look is judged (compare(..., level, margin)).
  double look_level = 0;
  // The simulated probability, under the null, that some look finds "shifted up" at that level
  // (the lower CI bound above 0): at most the one-sided error asked for.
  double one_sided_error = 0;
  int simulations = 0;
};

// The largest look level whose one-sided error over the looks is at most `one_sided_error`.
// `looks` are the runs per side at each look, strictly increasing, each >= 1. Looks too small
// for any CI at that level spend nothing. Deterministic (fixed seed, integer draws) and cached
// per (looks, error): the first call for a plan costs about 0.25 s (looks up to 30).
// Throws culprit::UsageError for empty or unordered looks or an error outside (0, 0.5).
SequentialBoundary sequential_boundary(std::span<const int> looks, double one_sided_error);

// The level for SamplingPlan::look_level: the boundary of the plan's looks (look_sizes) when
// every look is judged on the exact distribution (max_repetitions^2 <= exact_max_pairs); else
// Bonferroni at the same error, 2 * one_sided_error / K (compare then uses the normal
// approximation, which the boundary was not computed for).
double boundary_look_level(const SamplingPlan& plan, double one_sided_error);

}  // namespace culprit::stats
