#pragma once
// `culprit explain` output (docs/cli.md, "explain").

#include <string>

#include "culprit/analysis/explain.hpp"

namespace culprit::report {

// One explanation: the object of the interface contract; several: {experiment, explanations,
// skipped}.
std::string explain_json(const analysis::StoredExplanations& result);
std::string explain_text(const analysis::StoredExplanations& result);

// "+75.00 ms = +73.10 ms rank 63 gemm.fwd layer 5 (first divergence) + ... + 0.70 ms unclassified"
std::string explain_equation(const analysis::Explanation& e);

}  // namespace culprit::report
