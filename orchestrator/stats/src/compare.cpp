#include "culprit/stats/compare.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "culprit/common/lookup.hpp"
#include "culprit/common/median.hpp"
#include "culprit/errors.hpp"
#include "culprit/stats/mann_whitney.hpp"
#include "culprit/stats/summary.hpp"
#include "input_checks.hpp"

namespace culprit::stats {
namespace {

bool has_ties(std::span<const double> a, std::span<const double> b) {
  std::vector<double> pooled(a.begin(), a.end());
  pooled.insert(pooled.end(), b.begin(), b.end());
  std::sort(pooled.begin(), pooled.end());
  return std::adjacent_find(pooled.begin(), pooled.end()) != pooled.end();
}

double robust_sd(std::span<const double> samples) {
  return kMadToNormalSd * summarize(samples).mad;
}

std::string describe_method(Method method, bool ties) {
  if (method == Method::kExact) {
    return ties ? "exact: p from the permutation distribution of U given the observed ties; "
                  "CI from the continuous U distribution (conservative with ties)"
                : "exact: p and CI from the Mann-Whitney U distribution";
  }
  return "normal approximation of U with tie and continuity correction (large samples)";
}

}  // namespace

// String literals: each name's data() ends in a NUL, as verdict_name's callers need.
constexpr LookupEntry<Verdict, std::string_view> kVerdictNames[] = {
    {Verdict::kRegressed, "regressed"},
    {Verdict::kImproved, "improved"},
    {Verdict::kEquivalent, "equivalent"},
    {Verdict::kInconclusive, "inconclusive"}};

const char* verdict_name(Verdict verdict) {
  return lookup(kVerdictNames, verdict, std::string_view("inconclusive")).data();
}

const char* method_name(Method method) {
  return method == Method::kExact ? "exact" : "normal";
}

Verdict decide_verdict(double estimate, double lo, double hi, double margin) {
  if (lo > 0 && estimate >= margin) return Verdict::kRegressed;
  if (hi < 0 && estimate <= -margin) return Verdict::kImproved;
  if (-margin < lo && hi < margin) return Verdict::kEquivalent;
  return Verdict::kInconclusive;
}

double minimum_detectable_relative_effect(std::span<const double> baseline,
                                          std::span<const double> candidate, double alpha,
                                          double power) {
  const double m = static_cast<double>(baseline.size());
  const double n = static_cast<double>(candidate.size());
  const double sd_a = robust_sd(baseline);
  const double sd_b = robust_sd(candidate);
  const double pooled_variance = m + n > 2
                                     ? ((m - 1) * sd_a * sd_a + (n - 1) * sd_b * sd_b) / (m + n - 2)
                                     : std::max(sd_a * sd_a, sd_b * sd_b);
  const double z_sum = normal_quantile(1 - alpha / 2) + normal_quantile(power);
  const double mann_whitney_efficiency = 3 / std::numbers::pi;
  return z_sum * std::sqrt(pooled_variance) * std::sqrt(1 / m + 1 / n) /
         std::sqrt(mann_whitney_efficiency) / median(baseline);
}

Comparison compare(std::span<const double> baseline, std::span<const double> candidate,
                   const CompareOptions& options) {
  detail::require_finite_samples(baseline, "baseline");
  detail::require_finite_samples(candidate, "candidate");
  detail::require_alpha(options.alpha, "comparison");
  if (!(options.margin >= 0 && std::isfinite(options.margin))) {
    throw UsageError("stats: margin " + std::to_string(options.margin) +
                     " must be a finite relative shift >= 0 (e.g. 0.02 for 2 %)");
  }
  if (!(options.mde_power > 0 && options.mde_power < 1)) {
    throw UsageError("stats: mde_power must be in (0, 1), e.g. 0.8");
  }

  Comparison c;
  c.n_baseline = static_cast<int>(baseline.size());
  c.n_candidate = static_cast<int>(candidate.size());
  c.baseline_median = median(baseline);
  c.candidate_median = median(candidate);
  if (!(c.baseline_median > 0)) {
    throw UsageError("stats: the baseline median is " + std::to_string(c.baseline_median) +
                     "; relative shifts need positive times (check the runs' median_ms)");
  }
  c.alpha = options.alpha;
  c.margin = options.margin;
  c.ties = has_ties(baseline, candidate);

  const long pairs = static_cast<long>(c.n_baseline) * c.n_candidate;
  c.method = pairs <= options.exact_max_pairs ? Method::kExact : Method::kNormal;
  int k = 0;
  if (c.method == Method::kExact) {
    c.p_value = exact_p_value(baseline, candidate);
    k = hl_critical_rank_exact(c.n_baseline, c.n_candidate, options.alpha);
  } else {
    c.p_value = normal_p_value(baseline, candidate);
    k = hl_critical_rank_normal(c.n_baseline, c.n_candidate,
                                u_sigma_tie_corrected(baseline, candidate), options.alpha);
  }
  c.method_detail = describe_method(c.method, c.ties);

  const HodgesLehmann hl = hodges_lehmann(baseline, candidate, k);
  c.shift = hl.shift;
  c.shift_lo = hl.lo;
  c.shift_hi = hl.hi;
  c.ci_rank = k;
  c.has_ci = k >= 1;
  c.relative = c.shift / c.baseline_median;
  c.relative_lo = c.shift_lo / c.baseline_median;
  c.relative_hi = c.shift_hi / c.baseline_median;
  c.verdict = c.has_ci ? decide_verdict(c.relative, c.relative_lo, c.relative_hi, c.margin)
                       : Verdict::kInconclusive;
  if (baseline.size() >= 2 && candidate.size() >= 2) {
    c.mde_relative =
        minimum_detectable_relative_effect(baseline, candidate, options.alpha, options.mde_power);
  }
  return c;
}

Comparison compare(std::span<const double> baseline, std::span<const double> candidate,
                   double alpha, double margin) {
  CompareOptions options;
  options.alpha = alpha;
  options.margin = margin;
  return compare(baseline, candidate, options);
}

}  // namespace culprit::stats
