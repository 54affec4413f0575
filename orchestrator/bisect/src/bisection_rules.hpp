#pragma once
// Constants and small helpers shared by the parts of a bisection (private to bisect/; the
// methodology is in bisector.hpp and docs/methodology.md, "Bisection").

#include "culprit/bisect/bisector.hpp"

namespace culprit::bisect {

// Runs either side in time that estimate a run's drift (the posterior's drift correction).
constexpr int kDriftWindow = 3;
// The endpoints' go rule (EndpointJudge::posterior_goes): the no-step model's most. Also where
// the search measures against the first and last version instead of the bracket's ends.
constexpr double kGoNoStep = 0.2;

inline void set_range(Result& result, int lo, int hi) {
  result.last_good = lo;
  result.first_bad = hi;
}

}  // namespace culprit::bisect
