#pragma once
// `culprit validate` output: the scorecard of blind attribution against injected stragglers.

#include <string>

#include "culprit/analysis/attribution_score.hpp"

namespace culprit::report {

std::string validate_json(const analysis::Scorecard& card);
std::string validate_text(const analysis::Scorecard& card);

}  // namespace culprit::report
