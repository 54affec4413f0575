#pragma once
// Input checks shared by the stats functions; messages say what is wrong and what to do.

#include <span>
#include <string_view>

namespace culprit::stats::detail {

// Throws culprit::UsageError if `samples` is empty or holds a NaN or infinity.
void require_finite_samples(std::span<const double> samples, std::string_view what);

// Throws culprit::UsageError unless 0 < alpha < 1.
void require_alpha(double alpha, std::string_view what);

// Comparison tolerance for probabilities computed in floating point against a level, so that
// a tail probability equal to alpha/2 in exact arithmetic is not lost to rounding.
inline constexpr double kLevelTolerance = 1e-9;

}  // namespace culprit::stats::detail
