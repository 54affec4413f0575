#pragma once
// What `culprit verdict` prints: the checkout judged against the baseline, with the exit code
// `git bisect run` reads (culprit/bisect/git_verdict.hpp).

#include <string>

#include "culprit/report/document.hpp"
#include "culprit/stats/compare.hpp"

namespace culprit::report {

struct VerdictReport {
  std::string baseline;   // the good commit
  std::string candidate;  // the checkout judged
  std::string verdict;    // regressed | improved | equivalent | inconclusive | untestable
  int exit = 125;         // the git bisect exit code
  int n = 0;              // runs per version at the deciding look
  stats::Comparison comparison;
};

// What `culprit verdict` prints.
std::string verdict_document(const VerdictReport& r, Format format);

}  // namespace culprit::report
