#pragma once
// `culprit validate` output: the scorecard of blind attribution against injected stragglers.

#include <string>

#include "culprit/analysis/attribution_score.hpp"
#include "culprit/report/document.hpp"

namespace culprit::report {

std::string validate_json(const analysis::Scorecard& card);
std::string validate_text(const analysis::Scorecard& card);

// What `culprit validate` prints.
std::string validate_document(const analysis::Scorecard& card, Format format);

}  // namespace culprit::report
