#pragma once
// A bisection's result as the one JSON document of `culprit bisect --json` (docs/cli.md) and
// as text for people. Formatting only; the CLI prints.

#include <string>
#include <vector>

#include "culprit/bisect/bisector.hpp"

namespace culprit::bisect {

struct ReportContext {
  std::vector<std::string> details;  // per version: commit subject or description, may be empty
  int new_runs = -1;                 // runs launched by this invocation; -1 when unknown
  std::string experiment;
};

std::string result_json(const Result& result, const ReportContext& context);
std::string result_text(const Result& result, const ReportContext& context);

}  // namespace culprit::bisect
