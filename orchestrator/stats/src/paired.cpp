#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "culprit/errors.hpp"
#include "culprit/stats/compare.hpp"
#include "culprit/stats/summary.hpp"
#include "input_checks.hpp"

namespace culprit::stats {
namespace {

// P(T+ <= t) for t = 0 .. n(n+1)/2 under the null (every sign equally likely).
std::vector<double> signed_rank_cdf(int n) {
  const int total = n * (n + 1) / 2;
  std::vector<double> count(static_cast<std::size_t>(total) + 1, 0);
  count[0] = 1;
  for (int r = 1; r <= n; ++r) {
    for (int s = total; s >= r; --s) {
      count[static_cast<std::size_t>(s)] += count[static_cast<std::size_t>(s - r)];
    }
  }
  const double all = std::ldexp(1.0, n);
  double running = 0;
  for (auto& c : count) {
    running += c;
    c = running / all;
  }
  return count;
}

// log(candidate / baseline) of each pair, refused unless both are positive times.
std::vector<double> log_ratios(std::span<const double> baseline,
                               std::span<const double> candidate) {
  if (baseline.size() != candidate.size()) {
    throw UsageError("stats: a paired comparison needs as many baseline runs (" +
                     std::to_string(baseline.size()) + ") as candidate runs (" +
                     std::to_string(candidate.size()) + ")");
  }
  std::vector<double> d;
  for (std::size_t i = 0; i < baseline.size(); ++i) {
    const double a = baseline[i];
    const double b = candidate[i];
    if (!(a > 0 && b > 0)) {
      throw UsageError("stats: paired run medians must be positive times (pair " +
                       std::to_string(i) + ")");
    }
    d.push_back(std::log(b / a));
  }
  return d;
}

// The Walsh averages (d_i + d_j) / 2, i <= j, sorted.
std::vector<double> walsh_averages(const std::vector<double>& d) {
  std::vector<double> walsh;
  for (std::size_t i = 0; i < d.size(); ++i) {
    for (std::size_t j = i; j < d.size(); ++j) walsh.push_back(0.5 * (d[i] + d[j]));
  }
  std::sort(walsh.begin(), walsh.end());
  return walsh;
}

// Two-sided exact p of the signed-rank statistic T+ of `d` (cdf: signed_rank_cdf(n)).
double signed_rank_p(const std::vector<double>& d, const std::vector<double>& cdf) {
  // Ranks of |d| (no ties expected for continuous times; ties share the lower rank order).
  const int n = static_cast<int>(d.size());
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  std::sort(order.begin(), order.end(), [&](int x, int y) {
    return std::abs(d[static_cast<std::size_t>(x)]) < std::abs(d[static_cast<std::size_t>(y)]);
  });
  int t_plus = 0;
  for (int r = 0; r < n; ++r) {
    if (d[static_cast<std::size_t>(order[static_cast<std::size_t>(r)])] > 0) t_plus += r + 1;
  }
  const double lower = cdf[static_cast<std::size_t>(t_plus)];
  const double upper =
      1 - (t_plus > 0 ? cdf[static_cast<std::size_t>(t_plus - 1)] : 0.0);  // P(T+ >= t)
  return std::min(1.0, 2 * std::min(lower, upper));
}

}  // namespace

Comparison compare_paired(std::span<const double> baseline, std::span<const double> candidate,
                          const CompareOptions& options) {
  detail::require_finite_samples(baseline, "baseline");
  detail::require_finite_samples(candidate, "candidate");
  detail::require_alpha(options.alpha, "paired comparison");
  const std::vector<double> d = log_ratios(baseline, candidate);
  const int n = static_cast<int>(d.size());
  Comparison c;
  c.n_baseline = n;
  c.n_candidate = n;
  c.baseline_median = median(baseline);
  c.candidate_median = median(candidate);
  c.alpha = options.alpha;
  c.margin = options.margin;
  c.method = Method::kExact;
  c.method_detail =
      "paired: Hodges-Lehmann of the log ratio of runs made in the same block, exact Wilcoxon "
      "signed-rank p and CI";

  const std::vector<double> walsh = walsh_averages(d);
  const int pairs = static_cast<int>(walsh.size());
  const double estimate = quantile_sorted(walsh, 0.5);
  const std::vector<double> cdf = signed_rank_cdf(n);
  // CI [W_(k), W_(M+1-k)]: the largest k with P(T+ <= k - 1) <= alpha / 2.
  int k = 0;
  while (k < pairs &&
         cdf[static_cast<std::size_t>(k)] <= options.alpha / 2 + detail::kLevelTolerance) {
    ++k;
  }
  c.p_value = signed_rank_p(d, cdf);

  c.relative = std::expm1(estimate);
  c.has_ci = k >= 1;
  c.ci_rank = k;
  c.relative_lo = std::expm1(c.has_ci ? walsh[static_cast<std::size_t>(k - 1)] : walsh.front());
  c.relative_hi = std::expm1(c.has_ci ? walsh[static_cast<std::size_t>(pairs - k)] : walsh.back());
  c.shift = c.relative * c.baseline_median;
  c.shift_lo = c.relative_lo * c.baseline_median;
  c.shift_hi = c.relative_hi * c.baseline_median;
  c.verdict = c.has_ci ? decide_verdict(c.relative, c.relative_lo, c.relative_hi, c.margin)
                       : Verdict::kInconclusive;
  if (n >= 2) {
    c.mde_relative =
        minimum_detectable_relative_effect(baseline, candidate, options.alpha, options.mde_power);
  }
  return c;
}

}  // namespace culprit::stats
