#include "culprit/stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "culprit/common/median.hpp"
#include "culprit/errors.hpp"
#include "input_checks.hpp"

namespace culprit::stats {
namespace {

// P(X = k) for X ~ Binomial(n, 1/2), in log space so large n does not overflow.
double binomial_half_pmf(int n, int k) {
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) -
                  n * std::log(2.0));
}

double binomial_half_cdf(int n, int j) {
  if (j < 0) return 0;
  if (j >= n) return 1;
  double sum = 0;
  for (int k = 0; k <= j; ++k) sum += binomial_half_pmf(n, k);
  return std::min(sum, 1.0);
}

}  // namespace

double quantile_sorted(std::span<const double> sorted, double probability) {
  if (sorted.empty()) throw UsageError("stats: quantile of an empty sample");
  const double h = (static_cast<double>(sorted.size()) - 1) * probability;
  const auto below = static_cast<std::size_t>(std::floor(h));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (h - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

double median(std::span<const double> samples) {
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return quantile_sorted(sorted, 0.5);
}

int min_n_for_median_ci(double confidence) {
  detail::require_alpha(1 - confidence, "median CI");
  // The widest order-statistic interval [x_(1), x_(n)] covers with 1 - 2 * 2^-n.
  const double tail = (1 - confidence) / 2;
  int n = 1;
  while (std::ldexp(1.0, -n) > tail * (1 + detail::kLevelTolerance)) ++n;
  return n;
}

Summary summarize(std::span<const double> samples, double confidence) {
  detail::require_finite_samples(samples, "configuration");
  detail::require_alpha(1 - confidence, "median CI");
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());

  Summary s;
  s.n = static_cast<int>(sorted.size());
  s.median = quantile_sorted(sorted, 0.5);
  s.q1 = quantile_sorted(sorted, 0.25);
  s.q3 = quantile_sorted(sorted, 0.75);
  s.iqr = s.q3 - s.q1;

  std::vector<double> deviations(sorted.size());
  std::transform(sorted.begin(), sorted.end(), deviations.begin(),
                 [&](double x) { return std::abs(x - s.median); });
  s.mad = median(deviations);
  if (s.n >= 2) s.robust_cv = s.median != 0 ? kMadToNormalSd * s.mad / std::abs(s.median) : 0;

  // [x_(l), x_(n+1-l)] covers the median with 1 - 2 P(Bin(n, 1/2) <= l - 1); take the
  // largest l that keeps the coverage at or above `confidence`.
  const double tail = (1 - confidence) / 2;
  int l = 0;
  double below = binomial_half_pmf(s.n, 0);  // P(Bin <= l) as l grows
  while (l + 1 <= (s.n + 1) / 2 && below <= tail * (1 + detail::kLevelTolerance)) {
    ++l;
    below += binomial_half_pmf(s.n, l);
  }
  s.has_ci = l >= 1;
  const int used = s.has_ci ? l : 1;
  s.ci_lo = sorted[static_cast<std::size_t>(used - 1)];
  s.ci_hi = sorted[static_cast<std::size_t>(s.n - used)];
  s.ci_level = 1 - 2 * binomial_half_cdf(s.n, used - 1);
  return s;
}

}  // namespace culprit::stats
