#pragma once
// `culprit explain` output (docs/cli.md, "explain").

#include <string>

#include "culprit/analysis/explain.hpp"
#include "culprit/report/document.hpp"
#include "culprit/stats/judge.hpp"

namespace culprit::report {

// One explanation: the object of the interface contract; several: {experiment, explanations,
// skipped}. With `judged` (stats::judge_experiment of the same experiment), each explanation
// carries its candidate's verdict ("judgement", null without one) and the text a verdict line.
std::string explain_json(const analysis::StoredExplanations& result,
                         const stats::Judgement* judged = nullptr);
std::string explain_text(const analysis::StoredExplanations& result,
                         const stats::Judgement* judged = nullptr);

// "+75.00 ms = +73.10 ms rank 63 gemm.fwd layer 5 (first divergence) + ... + 0.70 ms unclassified"
std::string explain_equation(const analysis::Explanation& e);

// What `culprit explain` prints (`judged` as for explain_json).
std::string explain_document(const analysis::StoredExplanations& result,
                             const stats::Judgement* judged, Format format);

}  // namespace culprit::report
