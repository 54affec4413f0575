#pragma once
// Candidate B against baseline A: Hodges–Lehmann shift with its CI, Mann–Whitney p, relative
// shift and the four-way verdict with a practical margin (docs/methodology.md, "Statistics").

#include <optional>
#include <span>
#include <string>

namespace culprit::stats {

enum class Verdict { kRegressed, kImproved, kEquivalent, kInconclusive };

// "regressed", "improved", "equivalent", "inconclusive".
const char* verdict_name(Verdict verdict);

// The verdict rule on the relative CI [lo, hi] around `estimate` with margin delta:
// regressed if lo > 0 and estimate >= delta; improved if hi < 0 and estimate <= -delta;
// equivalent if -delta < lo and hi < delta; otherwise inconclusive.
Verdict decide_verdict(double estimate, double lo, double hi, double margin);

enum class Method { kExact, kNormal };
const char* method_name(Method method);  // "exact", "normal"

struct CompareOptions {
  double alpha = 0.05;   // two-sided; the CI has confidence 1 - alpha
  double margin = 0.02;  // practical margin delta on the relative shift
  // Exact distributions while m*n <= exact_max_pairs, normal approximation above.
  long exact_max_pairs = 2500;
  double mde_power = 0.8;  // power at which the minimum detectable effect is reported
};

struct Comparison {
  int n_baseline = 0;
  int n_candidate = 0;
  double baseline_median = 0;
  double candidate_median = 0;
  // Hodges–Lehmann shift candidate - baseline (units of the samples) and its CI.
  double shift = 0;
  double shift_lo = 0;
  double shift_hi = 0;
  bool has_ci = false;  // false: samples too small for a CI at alpha (verdict inconclusive)
  int ci_rank = 0;      // k of [D_(k), D_(mn+1-k)]
  // relative = shift / median(baseline); relative_lo/hi = shift_lo/hi / median(baseline).
  double relative = 0;
  double relative_lo = 0;
  double relative_hi = 0;
  double p_value = 1;  // two-sided Mann–Whitney
  // Relative shift detectable with power mde_power at alpha and the current n (see
  // minimum_detectable_relative_effect); nullopt below 2 runs a side, where no spread is known.
  std::optional<double> mde_relative;
  bool ties = false;  // the pooled sample has tied values
  Method method = Method::kExact;
  std::string method_detail;  // one line saying how p and the CI were computed
  double alpha = 0;
  double margin = 0;
  Verdict verdict = Verdict::kInconclusive;
};

// Throws culprit::UsageError when a side is empty, a value is not finite, the baseline median
// is not positive (relative shifts need a positive scale) or alpha/margin are out of range.
Comparison compare(std::span<const double> baseline, std::span<const double> candidate,
                   const CompareOptions& options = {});

// Convenience overload with the manifest's [stats] alpha and margin.
Comparison compare(std::span<const double> baseline, std::span<const double> candidate,
                   double alpha, double margin);

// Two-sample normal-approximation MDE, relative to the baseline median:
//   (z_{1-alpha/2} + z_{power}) * sigma * sqrt(1/m + 1/n) * sqrt(pi/3) / median(A),
// sigma = pooled robust SD (1.4826 * MAD per side, pooled by degrees of freedom), and
// sqrt(pi/3) the Mann–Whitney efficiency relative to the t test under normality (3/pi).
double minimum_detectable_relative_effect(std::span<const double> baseline,
                                          std::span<const double> candidate, double alpha,
                                          double power);

}  // namespace culprit::stats

namespace culprit::stats {

// Runs made in pairs (baseline[i] and candidate[i] in the same interleaved block, so the
// machine's load at that moment hits both): the Hodges–Lehmann estimate of the log ratio
// candidate/baseline (median of Walsh averages) with its exact CI from the Wilcoxon
// signed-rank distribution, the two-sided signed-rank p, and the same verdict rule and margin
// on the relative shift. A drift or load spike common to a pair cancels in its ratio.
// Throws culprit::UsageError for unequal or empty sides, or non-positive values.
Comparison compare_paired(std::span<const double> baseline, std::span<const double> candidate,
                          const CompareOptions& options = {});

}  // namespace culprit::stats
