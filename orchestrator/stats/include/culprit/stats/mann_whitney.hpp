#pragma once
// Mann–Whitney null distributions and the Hodges–Lehmann shift with its CI.
// U counts pairs (a_i, b_j) with b_j > a_i, a tie counting one half, so U > m*n/2 means the
// second sample (the candidate) tends to be larger. Distributions are over 2U (an integer).

#include <cstdint>
#include <span>
#include <vector>

namespace culprit::stats {

// Exact permutation distribution of 2U given the tie pattern of the pooled sample:
// probability[v] = P(2U = v) over all C(m+n, m) equally likely splits of the pooled values.
// Without ties this is the classical Mann–Whitney distribution (only even v occur).
// Cost O(m * (m+n) * m*n); callers keep m*n bounded (CompareOptions::exact_max_pairs).
std::vector<double> null_distribution_2u(std::span<const double> a, std::span<const double> b);

// The classical (continuous, no ties) distribution of U itself: probability[u] = P(U = u).
std::vector<double> null_distribution_u_continuous(int m, int n);

// U statistic of b against a (ties count 1/2), returned doubled.
std::int64_t twice_u_statistic(std::span<const double> a, std::span<const double> b);

// Two-sided exact p: P(|2U - mn| >= |2u_obs - mn|) under null_distribution_2u.
double exact_p_value(std::span<const double> a, std::span<const double> b);

// Two-sided normal approximation with tie-corrected variance and continuity correction.
double normal_p_value(std::span<const double> a, std::span<const double> b);

// Standard deviation of U under the null with the tie correction
// sqrt(mn/12 * ((N+1) - sum(t^3 - t) / (N(N-1)))), N = m+n, t = tie group sizes.
double u_sigma_tie_corrected(std::span<const double> a, std::span<const double> b);

// Rank k of the Hodges–Lehmann CI [D_(k), D_(mn+1-k)] (1-based order statistics of the mn
// differences): the largest k >= 1 with P(U <= k-1) <= alpha/2 under the continuous
// distribution. 0 means the samples are too small for a CI at this alpha.
int hl_critical_rank_exact(int m, int n, double alpha);
// Normal approximation: k = floor(mn/2 + 1/2 - z_{1-alpha/2} * sigma), sigma tie-corrected.
int hl_critical_rank_normal(int m, int n, double sigma, double alpha);

struct HodgesLehmann {
  double shift = 0;  // median of all differences b_j - a_i
  double lo = 0;     // D_(k), or min difference when there is no CI
  double hi = 0;     // D_(mn+1-k), or max difference when there is no CI
  int k = 0;         // 0: no CI at this alpha
};

// Computes the shift and the order statistics D_(k), D_(mn+1-k) in O(mn) (nth_element).
HodgesLehmann hodges_lehmann(std::span<const double> a, std::span<const double> b, int k);

// Standard normal helpers (no dependency on a stats library).
double normal_cdf(double z);
double normal_quantile(double p);  // inverse of normal_cdf, |error| < 1e-9

}  // namespace culprit::stats
