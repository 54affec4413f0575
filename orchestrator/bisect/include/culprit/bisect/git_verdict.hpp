#pragma once
// `culprit verdict` speaks `git bisect run`'s exit codes: 0 good, 1 bad, 125 skip, and above
// 127 abort. Anything that is not a judgement of the commit must abort the bisection.

#include "culprit/stats/compare.hpp"

namespace culprit::bisect::git_bisect {

inline constexpr int kGood = 0;
inline constexpr int kBad = 1;
inline constexpr int kSkip = 125;
inline constexpr int kAbort = 128;

// Regressed is bad, inconclusive is skip, improved and equivalent are good.
int exit_code(stats::Verdict verdict);
// "good", "bad" or "skip" for one of the codes above.
const char* word(int code);

}  // namespace culprit::bisect::git_bisect
