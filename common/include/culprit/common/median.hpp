#pragma once
// The median as every module but stats means it, the simulator too: the middle value, or the
// mean of the two middle values of an even count (Python's statistics.median, which the tests'
// oracles use). The stats module's summaries take the median as their type-7 quantile at 1/2,
// one interpolation family with the quartiles (stats/summary.hpp).

#include <cstddef>
#include <vector>

namespace culprit {

// Turns a median absolute deviation into the standard deviation of normal noise (1 / z at 3/4):
// the robust spread of the statistics, the analysis and the bisection's noise guard.
inline constexpr double kMadToNormalSd = 1.4826;

// NaN when `values` is empty; reorders them (O(n), no sort).
double median_inplace(std::vector<double>& values);

inline double median_of(std::vector<double> values) {
  return median_inplace(values);
}

}  // namespace culprit
