#pragma once
// clock_throttling's evidence from GPU telemetry: the blamed rank's SM clock against its peers'
// in the same time windows (the slow steps, on the run's aligned clock).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "culprit/analysis/gpu_ranks.hpp"
#include "culprit/analysis/why.hpp"
#include "culprit/importers/telemetry.hpp"
#include "culprit/storage/evidence.hpp"

namespace culprit::analysis {

// [begin_ns, end_ns) on the run's aligned clock (or Unix ns for a file without a run).
struct TimeWindow {
  double begin_ns = 0.0;
  double end_ns = 0.0;
};

// The median SM_CLOCK of `rank` against the median of the other ranks' medians, over the samples
// inside `windows` (empty: every sample). `where` says which windows ("in its 3 slow steps").
// nullopt when the rank or every peer has no SM clock sample there.
std::optional<ClockEvidence> clock_evidence(const std::vector<storage::TelemetryRow>& samples,
                                            int rank, const std::vector<TimeWindow>& windows,
                                            const std::string& where);

// The same over a telemetry file without a run (`culprit why --telemetry`): a GPU's rank from
// `gpu_rank`, else its index; every sample counts.
std::optional<ClockEvidence> clock_evidence(const importers::telemetry::Series& series, int rank,
                                            const std::map<int, int>& gpu_rank);

// Why clock_evidence of the file is nullopt, for the message: no SM clock sample at all, none of
// `rank` (naming the ranks that have some), or none of a peer.
std::string no_clock_evidence_reason(const importers::telemetry::Series& series, int rank,
                                     const std::map<int, int>& gpu_rank);

}  // namespace culprit::analysis
