#include "culprit/bisect/git_verdict.hpp"

#include "culprit/common/lookup.hpp"

namespace culprit::bisect::git_bisect {

// git bisect run's meaning of an exit code: improved and equivalent are both "good".
constexpr LookupEntry<stats::Verdict, int> kExitCodes[] = {{stats::Verdict::kRegressed, kBad},
                                                           {stats::Verdict::kInconclusive, kSkip},
                                                           {stats::Verdict::kImproved, kGood},
                                                           {stats::Verdict::kEquivalent, kGood}};

int exit_code(stats::Verdict verdict) {
  return lookup(kExitCodes, verdict, int{kGood});
}

const char* word(int code) {
  return code == kBad ? "bad" : code == kGood ? "good" : "skip";
}

}  // namespace culprit::bisect::git_bisect
