#pragma once
// PyTorch profiler traces: Kineto JSON (libkineto layout, both timestamp styles) and the
// legacy `export_chrome_trace` array of a PyTorch built without Kineto.

#include <string>

#include "culprit/importers/records.hpp"

namespace culprit::importers {

// `bytes` is the whole (inflated) file; `file` names it in errors and warnings.
RankTrace parse_kineto(const std::string& bytes, const std::string& file);
RankTrace parse_legacy(const std::string& bytes, const std::string& file);

}  // namespace culprit::importers
