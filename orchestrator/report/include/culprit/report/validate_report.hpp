#pragma once
// `culprit validate` output: the scorecard of blind attribution against injected stragglers.

#include <string>

#include "culprit/analysis/attribution_score.hpp"
#include "culprit/report/document.hpp"
#include "culprit/stats/judge.hpp"

namespace culprit::report {

// With `judged` (stats::judge_experiment of the same experiment, as compare, explain and report
// judge it): JSON `judgement` {alpha, looks, alpha_per_comparison, margin, source, comparisons
// [{baseline, candidate, verdict, relative, relative_ci, alpha, margin}]}, and each uninjected run
// says its configuration's verdict ("regressed without injection" only when it is regressed).
std::string validate_json(const analysis::Scorecard& card,
                          const stats::Judgement* judged = nullptr);
std::string validate_text(const analysis::Scorecard& card,
                          const stats::Judgement* judged = nullptr);

// What `culprit validate` prints (`judged` as for validate_json).
std::string validate_document(const analysis::Scorecard& card, const stats::Judgement* judged,
                              Format format);

}  // namespace culprit::report
