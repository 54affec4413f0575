#pragma once
// The why block (analysis::WhyVerdict) as text and as one JSON object:
//   {kernel, baseline, candidate, explanations: [{name, status, reason, evidence: [{metric,
//    baseline, candidate, numerator, denominator, unit}]}], reconciliation}
// `baseline` / `candidate`: {file, kernel, launch_ids, roof, figures: [{metric, value,
// numerator, denominator, unit, source, note}]}, `baseline` null for one export alone.

#include <string>

#include "culprit/analysis/why.hpp"
#include "culprit/report/document.hpp"
#include "culprit/report/json_writer.hpp"

namespace culprit::report {

void write_why(JsonWriter& w, const analysis::WhyVerdict& v);
// One explanation: {name, status, reason, evidence: [...]}; as text, one line.
void write_why_explanation(JsonWriter& w, const analysis::WhyExplanation& e);
std::string why_explanation_line(const analysis::WhyExplanation& e);
std::string why_json(const analysis::WhyVerdict& v);

// explain's fields for one explanation (inside its object): "why" (the verdict or null),
// "why_against", "next_capture", "telemetry_capture", "slow_steps" (the candidate run's steps
// blamed on the culprit's rank) and "clock_throttling" (from telemetry alone, or null).
void write_why_fields(JsonWriter& w, const analysis::WhyBlock& b);
// explain's text after the cause line: the why block, or how to get one; the next capture.
std::string why_block_text(const analysis::WhyBlock& b);

// What `culprit why` prints.
std::string why_document(const analysis::WhyVerdict& v, Format format);

}  // namespace culprit::report
