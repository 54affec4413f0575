#include "culprit/stats/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>

#include "input_checks.hpp"

namespace culprit::stats {
namespace {

// Sizes of the groups of equal values in the pooled sample, in ascending order of value.
std::vector<int> tie_group_sizes(std::span<const double> a, std::span<const double> b) {
  std::vector<double> pooled(a.begin(), a.end());
  pooled.insert(pooled.end(), b.begin(), b.end());
  std::sort(pooled.begin(), pooled.end());
  std::vector<int> sizes;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j] == pooled[i]) ++j;
    sizes.push_back(static_cast<int>(j - i));
    i = j;
  }
  return sizes;
}

// Distribution of 2U when m of the pooled values go to the first sample, all splits equally
// likely. Walks the tie groups in ascending order; state = (first-sample values placed so
// far, 2U so far). A group of size t split a/(t-a) adds 2(t-a)j (second-sample values above
// the j earlier first-sample values) plus a(t-a) (the half-counted ties inside the group),
// in C(t, a) ways.
std::vector<double> distribution_from_groups(const std::vector<int>& groups, int m, int n) {
  const long max_v = 2L * m * n;
  const auto width = static_cast<std::size_t>(max_v + 1);
  std::vector<double> current((m + 1) * width, 0.0);
  std::vector<double> next(current.size(), 0.0);
  current[0] = 1;
  int placed = 0;
  for (int t : groups) {
    std::fill(next.begin(), next.end(), 0.0);
    std::vector<double> ways(t + 1, 1.0);  // C(t, a)
    for (int a = 1; a <= t; ++a) ways[a] = ways[a - 1] * (t - a + 1) / a;
    for (int j = 0; j <= std::min(m, placed); ++j) {
      const int second_so_far = placed - j;
      if (second_so_far > n) continue;
      const long reach = 2L * j * second_so_far;  // largest 2U reachable in this state
      const double* row = &current[j * width];
      for (int a = 0; a <= t && j + a <= m; ++a) {
        const int bcount = t - a;
        if (second_so_far + bcount > n) continue;
        const long add = 2L * bcount * j + static_cast<long>(a) * bcount;
        double* out = &next[(j + a) * width + add];
        const double w = ways[a];
        for (long v = 0; v <= reach; ++v) out[v] += w * row[v];
      }
    }
    current.swap(next);
    placed += t;
  }
  std::vector<double> result(current.begin() + static_cast<long>(m * width), current.end());
  double total = 0;
  for (double p : result) total += p;
  for (double& p : result) p /= total;
  return result;
}

}  // namespace

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::numbers::sqrt2);
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) return p <= 0 ? -INFINITY : INFINITY;
  // Bisection on the monotone CDF: a few microseconds, and exact to double precision.
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = 0.5 * (lo + hi);
    (normal_cdf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

std::int64_t twice_u_statistic(std::span<const double> a, std::span<const double> b) {
  std::vector<double> sorted_b(b.begin(), b.end());
  std::sort(sorted_b.begin(), sorted_b.end());
  std::int64_t twice_u = 0;
  for (double x : a) {
    const auto lower = std::lower_bound(sorted_b.begin(), sorted_b.end(), x);
    const auto upper = std::upper_bound(lower, sorted_b.end(), x);
    twice_u += 2 * (sorted_b.end() - upper) + (upper - lower);
  }
  return twice_u;
}

std::vector<double> null_distribution_2u(std::span<const double> a, std::span<const double> b) {
  const int m = static_cast<int>(a.size());
  const int n = static_cast<int>(b.size());
  const std::vector<int> groups = tie_group_sizes(a, b);
  // The DP state grows with the first sample's size: put the smaller sample first and
  // mirror (U of b vs a = mn - U of a vs b), which keeps the cost O(min(m,n) * (m+n) * mn).
  if (m <= n) return distribution_from_groups(groups, m, n);
  std::vector<double> mirrored = distribution_from_groups(groups, n, m);
  std::reverse(mirrored.begin(), mirrored.end());
  return mirrored;
}

std::vector<double> null_distribution_u_continuous(int m, int n) {
  const std::vector<int> singletons(static_cast<std::size_t>(m + n), 1);
  const std::vector<double> twice =
      distribution_from_groups(singletons, std::min(m, n), std::max(m, n));
  std::vector<double> result(static_cast<std::size_t>(m) * n + 1);
  for (std::size_t u = 0; u < result.size(); ++u) result[u] = twice[2 * u];
  return result;  // symmetric, so mirroring for m > n is not needed
}

double exact_p_value(std::span<const double> a, std::span<const double> b) {
  const long mn = static_cast<long>(a.size()) * static_cast<long>(b.size());
  const long observed = std::labs(twice_u_statistic(a, b) - mn);
  const std::vector<double> distribution = null_distribution_2u(a, b);
  double p = 0;
  for (long v = 0; v < static_cast<long>(distribution.size()); ++v) {
    if (std::labs(v - mn) >= observed) p += distribution[static_cast<std::size_t>(v)];
  }
  return std::min(p, 1.0);
}

double u_sigma_tie_corrected(std::span<const double> a, std::span<const double> b) {
  const double m = static_cast<double>(a.size());
  const double n = static_cast<double>(b.size());
  const double total = m + n;
  if (total < 2) return 0;
  double tie_sum = 0;
  for (int t : tie_group_sizes(a, b)) tie_sum += static_cast<double>(t) * t * t - t;
  const double variance = m * n / 12 * ((total + 1) - tie_sum / (total * (total - 1)));
  return std::sqrt(std::max(variance, 0.0));
}

double normal_p_value(std::span<const double> a, std::span<const double> b) {
  const double sigma = u_sigma_tie_corrected(a, b);
  if (sigma == 0) return 1;  // every value equal: no evidence of a shift
  const double mn = static_cast<double>(a.size()) * static_cast<double>(b.size());
  const double u = static_cast<double>(twice_u_statistic(a, b)) / 2;
  const double z = std::max(std::abs(u - mn / 2) - 0.5, 0.0) / sigma;
  return std::min(std::erfc(z / std::numbers::sqrt2), 1.0);
}

int hl_critical_rank_exact(int m, int n, double alpha) {
  const std::vector<double> distribution = null_distribution_u_continuous(m, n);
  const double tail = alpha / 2 * (1 + detail::kLevelTolerance);
  const int max_k = (m * n + 1) / 2;  // keeps D_(k) <= D_(mn+1-k)
  int k = 0;
  double cumulative = 0;  // P(U <= k)
  for (int u = 0; u < max_k; ++u) {
    cumulative += distribution[static_cast<std::size_t>(u)];
    if (cumulative > tail) break;
    k = u + 1;
  }
  return k;
}

int hl_critical_rank_normal(int m, int n, double sigma, double alpha) {
  const double mn = static_cast<double>(m) * n;
  const double z = normal_quantile(1 - alpha / 2);
  const double k = std::floor(mn / 2 + 0.5 - z * sigma);
  const double max_k = std::floor((mn + 1) / 2);
  if (k < 1) return 0;
  return static_cast<int>(std::min(k, max_k));
}

HodgesLehmann hodges_lehmann(std::span<const double> a, std::span<const double> b, int k) {
  std::vector<double> d;
  d.reserve(a.size() * b.size());
  for (double x : a) {
    for (double y : b) d.push_back(y - x);
  }
  const auto nth = [&d](std::size_t index) {
    std::nth_element(d.begin(), d.begin() + static_cast<long>(index), d.end());
    return d[index];
  };
  const std::size_t total = d.size();
  HodgesLehmann result;
  result.k = k;
  const double upper_mid = nth(total / 2);
  result.shift = total % 2 == 1 ? upper_mid : 0.5 * (upper_mid + nth(total / 2 - 1));
  if (k >= 1) {
    result.lo = nth(static_cast<std::size_t>(k - 1));
    result.hi = nth(total - static_cast<std::size_t>(k));
  } else {
    const auto [min_it, max_it] = std::minmax_element(d.begin(), d.end());
    result.lo = *min_it;
    result.hi = *max_it;
  }
  return result;
}

}  // namespace culprit::stats
