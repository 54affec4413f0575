#pragma once
// `culprit reduce` output: the summary printed beside the reduced manifest (the manifest itself is
// written by manifest::write_manifest); `culprit explain` of a reduced experiment: the
// reproduction lines.

#include <string>
#include <vector>

#include "culprit/reduce/reduction.hpp"
#include "culprit/reduce/step_excess.hpp"
#include "culprit/report/document.hpp"

namespace culprit::report {

// What `culprit reduce` prints: what was written, the causes and the notes (text), or {output,
// causes[], notes[]} (JSON).
std::string reduce_summary_document(const reduce::Reduction& reduction, const std::string& output,
                                    Format format);

// "cause-1: +71.90 ms reproduces 99 % of the original +72.46 ms (not reproduced: +0.56 ms)"
std::string reproduction_text(const std::vector<reduce::Reproduced>& rows,
                              double original_delta_ms);

// The hiccup figure of a reduced experiment: each configuration's step excess in the hit steps
// against the original's (`original_ms`, [reduced_from].step_excess_ms).
std::string step_excess_text(const std::vector<reduce::StepExcess>& rows,
                             const std::vector<int>& steps, double original_ms);

}  // namespace culprit::report
