#pragma once
// PyTorch profiler traces: Kineto JSON (libkineto layout, both timestamp styles) and the
// legacy `export_chrome_trace` array of a PyTorch built without Kineto.

#include <optional>
#include <string>
#include <string_view>

#include "culprit/importers/records.hpp"

namespace culprit::importers {

// `bytes` is the whole (inflated) file; `file` names it in errors and warnings.
RankTrace parse_kineto(const std::string& bytes, const std::string& file);
RankTrace parse_legacy(const std::string& bytes, const std::string& file);

// The rank in a file name ("rank3.json", "rank-34.Jul..json", "sampled_rank_1.json.gz"); -1.
// Throws culprit::UsageError when the name's number is no rank (leading_rank).
int rank_from_file_name(const std::string& path);
// The rank that `text` starts with: its leading digits, when they form a number below INT_MAX
// (a world size, the highest rank + 1, must be an int too); nullopt otherwise.
std::optional<int> leading_rank(std::string_view text);

}  // namespace culprit::importers
