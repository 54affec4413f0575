#pragma once
// clock_throttling's evidence from GPU telemetry: the blamed rank's SM clock against its peers'.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "culprit/analysis/why.hpp"
#include "culprit/importers/telemetry.hpp"

namespace culprit::analysis {

// "0=0,1=1,..." (GPU index = rank); UsageError otherwise.
std::map<int, int> parse_gpu_rank(const std::string& text);

// The median SM_CLOCK of `rank`'s GPU against the median of the other ranks' medians, over the
// samples inside `windows` (Unix seconds, [begin, end); empty: every sample). A GPU's rank comes
// from `gpu_rank`, else its index. nullopt when the rank or every peer has no SM clock sample.
std::optional<ClockEvidence> clock_evidence(const importers::telemetry::Series& series, int rank,
                                            const std::map<int, int>& gpu_rank,
                                            const std::vector<std::pair<double, double>>& windows);

}  // namespace culprit::analysis
