#include "culprit/bisect/git_verdict.hpp"

namespace culprit::bisect::git_bisect {

int exit_code(stats::Verdict verdict) {
  switch (verdict) {
    case stats::Verdict::kRegressed:
      return kBad;
    case stats::Verdict::kInconclusive:
      return kSkip;
    case stats::Verdict::kImproved:
    case stats::Verdict::kEquivalent:
      break;
  }
  return kGood;
}

const char* word(int code) {
  return code == kBad ? "bad" : code == kGood ? "good" : "skip";
}

}  // namespace culprit::bisect::git_bisect
