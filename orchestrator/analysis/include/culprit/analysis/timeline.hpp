#pragma once
// One run's events on a common clock, indexed the ways attribution walks them: per rank in
// issue order, per step, and per collective instance (matched across ranks by identifiers).
// Raw timestamps stay untouched in RunData; aligned times are derived here once.

#include <cstdint>
#include <vector>

#include "culprit/analysis/alignment.hpp"
#include "culprit/analysis/step_times.hpp"
#include "culprit/storage/run_data.hpp"

namespace culprit::analysis {

using EventIndex = std::int32_t;  // index into RunData::events; -1 = none
inline constexpr EventIndex kNoEvent = -1;

struct Timeline {
  const storage::RunData* run = nullptr;
  std::vector<RankAlignment> alignment;  // per rank
  std::vector<double> begin_ns;          // aligned begin of each event (rank 0's clock)
  std::vector<double> end_ns;            // aligned end of each event
  // Per rank, the non-step events ordered by aligned begin, and the same set ordered by end.
  std::vector<std::vector<EventIndex>> by_begin;
  std::vector<std::vector<EventIndex>> by_end;
  std::vector<std::int32_t> position;  // an event's index inside by_begin[rank]
  // Collective instances present on every rank, ordered by (step, seq).
  std::vector<CollectiveGroup> collectives;
  std::vector<std::int32_t> collective_of;  // event -> index into collectives, -1 otherwise
  // Complete steps on the aligned clock, and each one's step event per rank.
  std::vector<StepTime> steps;
  std::vector<std::vector<EventIndex>> step_event;  // [index into steps][rank]

  const storage::Event& event(EventIndex e) const {
    return run->events[static_cast<std::size_t>(e)];
  }
  // Duration on the rank's own clock: immune to any offset between ranks.
  double duration_ns(EventIndex e) const {
    const storage::Event& x = event(e);
    return static_cast<double>(x.end_ns - x.begin_ns);
  }
  int ranks() const { return run->ranks; }
};

// Matches collectives, refines the alignment and indexes the run. `run` must outlive the result.
Timeline build_timeline(const storage::RunData& run);

}  // namespace culprit::analysis
