#pragma once
// `culprit compare` output: configuration medians with CIs, then each candidate's
// Hodges–Lehmann shift against the baseline with its CI, p-value and verdict.

#include <string>

#include "culprit/stats/stored.hpp"

namespace culprit::report {

// How the comparisons were tested, for the table's heading: the overall alpha split over the
// planned looks of adaptive sampling gives the alpha of each comparison.
struct CompareSettings {
  double alpha = 0.05;                 // overall, two-sided
  int looks = 1;                       // planned looks of adaptive sampling
  double alpha_per_comparison = 0.05;  // what each comparison was tested at
  double margin = 0.02;                // practical margin on the relative shift
  std::string source;                  // where alpha and margin came from
};

// {"experiment", "comparisons": [...], "skipped": [{"label", "reason"}]}.
std::string compare_json(const stats::StoredComparisons& result);
// One named pair: the comparison object with "experiment" as its first key.
std::string compare_pair_json(const std::string& experiment, const stats::StoredComparison& pair);
std::string compare_text(const stats::StoredComparisons& result, const CompareSettings& settings);

}  // namespace culprit::report
