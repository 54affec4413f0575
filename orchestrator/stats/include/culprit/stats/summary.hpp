#pragma once
// Per-configuration summary of run medians: the sample unit is one run (its median step
// time); steps inside a run are correlated and never pooled (docs/methodology.md).

#include <optional>
#include <span>

namespace culprit::stats {

struct Summary {
  int n = 0;
  double median = 0;
  // Distribution-free CI for the median from order statistics [x_(l), x_(n+1-l)].
  // has_ci is false when n is too small for the requested confidence (n < 6 at 95 %);
  // ci_lo/ci_hi are then the sample minimum and maximum and ci_level their coverage.
  bool has_ci = false;
  double ci_lo = 0;
  double ci_hi = 0;
  double ci_level = 0;  // achieved coverage of [ci_lo, ci_hi] (>= the requested one if has_ci)
  double q1 = 0;        // quartiles, linear interpolation between order statistics (type 7)
  double q3 = 0;
  double iqr = 0;
  double mad = 0;  // median absolute deviation from the median (unscaled)
  // kMadToNormalSd (1.4826) * mad / median (0 when the median is 0); nullopt for one sample,
  // which has no spread.
  std::optional<double> robust_cv;
};

// Throws culprit::UsageError for an empty sample or non-finite values.
Summary summarize(std::span<const double> samples, double confidence = 0.95);

// Smallest n for which summarize() can give an order-statistic CI at `confidence`.
int min_n_for_median_ci(double confidence = 0.95);

// Quantile of a sorted sample by linear interpolation (Hyndman & Fan type 7, R's default).
double quantile_sorted(std::span<const double> sorted, double probability);

// Median of an unsorted sample (copies it).
double median(std::span<const double> samples);

}  // namespace culprit::stats
