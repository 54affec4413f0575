#pragma once
// `culprit export --format perfetto`: one run as Chrome trace-event JSON (what Perfetto's UI and
// chrome://tracing open). One process per rank; one track (thread) per phase kind (compute,
// collectives, waits, host, steps); slices on the ALIGNED clock (microseconds from the run's
// earliest aligned event, `otherData.origin_ns`), with the raw local times and the clock
// uncertainty in their args; flow arrows link each collective's instances across ranks (matched
// by identifiers, in arrival order); waits (arrival to the last arrival) are their own slices;
// the run's culprit and each step's first divergence are annotated.

#include <string>
#include <vector>

#include "culprit/analysis/attribution.hpp"
#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/timeline.hpp"

namespace culprit::report {

struct TraceFilter {
  int first_step = -1;     // -1: from the first
  int last_step = -1;      // -1: to the last
  std::vector<int> ranks;  // the job's rank ids; empty: every rank
};

// Throws culprit::UsageError when `filter` selects none of the run's steps (--steps 100:200 of a
// 6-step run), naming the run's step range: a trace of metadata only answers nothing.
void check_trace_filter(const storage::RunData& run, const TraceFilter& filter);

// Track ids (the "tid" of every event of that kind).
inline constexpr int kComputeTrack = 1;
inline constexpr int kCollectiveTrack = 2;
inline constexpr int kWaitTrack = 3;
inline constexpr int kHostTrack = 4;
inline constexpr int kStepTrack = 5;

// `timeline` is analysis::build_timeline of the run, `timings` time_collectives of it, and
// `attribution` attribute_run of the same run (analysis/ aligns and attributes; this writes).
std::string perfetto_trace(const analysis::Timeline& timeline,
                           const std::vector<analysis::CollectiveTiming>& timings,
                           const analysis::RunAttribution& attribution, const TraceFilter& filter);

}  // namespace culprit::report
