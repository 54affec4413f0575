#pragma once
// Order statistics shared by the analysis sources and reduce (calibration, model level).

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

#include "culprit/common/median.hpp"  // median_inplace, median_of

namespace culprit::analysis {

// What a statistic of no values is.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Median of a sorted range with the element at `skip` left out (a rank's peers); NaN when no
// element is left.
inline double median_without(const double* sorted, std::size_t n, std::size_t skip) {
  if (n <= 1) return kNaN;
  const std::size_t m = n - 1;
  auto at = [&](std::size_t i) { return sorted[i < skip ? i : i + 1]; };
  return m % 2 == 1 ? at(m / 2) : 0.5 * (at(m / 2 - 1) + at(m / 2));
}

// median_without for every member of an unsorted group, in O(n): the median of a member's peers
// depends only on where its value falls against the two or three middle order statistics, so
// of(v) equals median_without(sorted, n, i) for the member at sorted position i, bit for bit
// (members of equal value give the same result whichever of their positions is taken).
class LeaveOneOutMedian {
 public:
  // `scratch` is reordered working space (kept by the caller so groups reuse its capacity).
  LeaveOneOutMedian(const std::vector<double>& values, std::vector<double>& scratch)
      : n_(values.size()) {
    if (n_ <= 1) return;
    scratch.assign(values.begin(), values.end());
    const std::size_t mid = n_ / 2;
    const auto at = scratch.begin() + static_cast<std::ptrdiff_t>(mid);
    std::nth_element(scratch.begin(), at, scratch.end());
    middle_ = *at;
    below_ = *std::max_element(scratch.begin(), at);
    if (n_ % 2 == 1) above_ = *std::min_element(at + 1, scratch.end());
  }
  double of(double v) const {
    if (n_ <= 1) return kNaN;
    if (n_ % 2 == 0) return v < middle_ ? middle_ : below_;  // n/2 - 1 and n/2
    if (v < middle_) return 0.5 * (middle_ + above_);
    if (v > middle_) return 0.5 * (below_ + middle_);
    return 0.5 * (below_ + above_);
  }

 private:
  std::size_t n_;
  double below_ = 0, middle_ = 0, above_ = 0;
};

// kMadToNormalSd * median |x|: the standard deviation of normal noise centred on 0, robust to
// outliers.
inline double robust_sigma_about_zero(std::vector<double>& deviations) {
  for (double& d : deviations) d = d < 0 ? -d : d;
  const double mad = median_inplace(deviations);
  return mad != mad ? 0.0 : kMadToNormalSd * mad;
}

// Robust coefficient of variation: robust_sigma_about_zero of the deviations from the median,
// over the median; 0 with fewer than `min_values` values or a median that is not positive.
inline double robust_cv(std::vector<double> values, std::size_t min_values) {
  if (values.size() < min_values) return 0;
  const double m = median_inplace(values);
  if (!(m > 0)) return 0;
  for (double& v : values) v -= m;
  return robust_sigma_about_zero(values) / m;
}

}  // namespace culprit::analysis

namespace culprit::analysis {

// Sorts a range that is already almost in order (events logged in issue order, with a few
// overlapped collectives out of place) in O(n + inversions); falls back to std::sort when the
// input turns out to be far from sorted.
template <typename It, typename Less>
void sort_almost_sorted(It first, It last, Less less) {
  if (std::is_sorted(first, last, less)) return;
  const auto n = static_cast<std::size_t>(last - first);
  std::size_t moves = 0;
  for (It i = first + (n ? 1 : 0); i < last; ++i) {
    auto value = std::move(*i);
    It j = i;
    for (; j != first && less(value, *(j - 1)); --j) {
      *j = std::move(*(j - 1));
      if (++moves > 16 * n + 64) {
        *j = std::move(value);  // keep the range a permutation, then sort it properly
        std::sort(first, last, less);
        return;
      }
    }
    *j = std::move(value);
  }
}

}  // namespace culprit::analysis
