#pragma once
// `culprit compare` output: configuration medians with CIs, then each candidate's
// Hodges–Lehmann shift against the baseline with its CI, p-value and verdict.

#include <string>

#include "culprit/report/document.hpp"
#include "culprit/stats/judge.hpp"
#include "culprit/stats/stored.hpp"

namespace culprit::report {

// How the comparisons were tested, for the table's heading (stats::judge_experiment's).
using CompareSettings = stats::JudgingSettings;

// {"experiment", "comparisons": [...], "skipped": [{"label", "reason"}]}.
std::string compare_json(const stats::StoredComparisons& result);
// One named pair: the comparison object with "experiment" as its first key.
std::string compare_pair_json(const std::string& experiment, const stats::StoredComparison& pair);
std::string compare_text(const stats::StoredComparisons& result, const CompareSettings& settings);

// What `culprit compare` prints: every comparison of `judged` (the text with the settings it
// was judged at), or with `one_pair` (--candidate) the one comparison as compare_pair_json.
std::string compare_document(const stats::Judgement& judged, bool one_pair, Format format);

}  // namespace culprit::report
