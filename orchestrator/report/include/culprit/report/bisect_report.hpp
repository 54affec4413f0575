#pragma once
// A bisection's result as the one JSON document of `culprit bisect --json` (docs/cli.md) and
// as text for people. Formatting only; the CLI prints.

#include <string>
#include <vector>

#include "culprit/bisect/bisector.hpp"
#include "culprit/report/document.hpp"

namespace culprit::report {

struct BisectContext {
  std::vector<std::string> details;  // per version: commit subject or description, may be empty
  int new_runs = -1;                 // runs launched by this invocation; -1 when unknown
  std::string experiment;
};

std::string bisect_json(const bisect::Result& result, const BisectContext& context);

// What `culprit bisect` prints.
std::string bisect_document(const bisect::Result& result, const BisectContext& context,
                            Format format);

}  // namespace culprit::report
