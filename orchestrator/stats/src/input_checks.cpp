#include "input_checks.hpp"

#include <cmath>
#include <string>

#include "culprit/errors.hpp"

namespace culprit::stats::detail {

void require_finite_samples(std::span<const double> samples, std::string_view what) {
  if (samples.empty()) {
    throw UsageError("stats: " + std::string(what) +
                     " has no samples; it needs at least one successful run (check `culprit "
                     "runs` for failed runs)");
  }
  for (double value : samples) {
    if (!std::isfinite(value)) {
      throw UsageError("stats: " + std::string(what) +
                       " contains a non-finite value; drop failed runs before comparing");
    }
  }
}

void require_alpha(double alpha, std::string_view what) {
  if (!(alpha > 0 && alpha < 1)) {
    throw UsageError("stats: " + std::string(what) + " alpha " + std::to_string(alpha) +
                     " is outside (0, 1); use e.g. 0.05");
  }
}

}  // namespace culprit::stats::detail
