#pragma once
// A rank read from a name: a trace file's ("rank3.json") or a mark's ("MPI Rank 3"), for every
// format whose file does not say its rank itself.

#include <optional>
#include <string>
#include <string_view>

namespace culprit::importers {

// The rank in a file name ("rank3.json", "rank-34.Jul..json", "sampled_rank_1.json.gz"); -1.
// Throws culprit::UsageError when the name's number is no rank (leading_rank).
int rank_from_file_name(const std::string& path);
// The rank that `text` starts with: its leading digits, when they form a number below INT_MAX
// (a world size, the highest rank + 1, must be an int too); nullopt otherwise.
std::optional<int> leading_rank(std::string_view text);

}  // namespace culprit::importers
