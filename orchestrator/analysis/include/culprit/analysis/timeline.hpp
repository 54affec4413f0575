#pragma once
// One run's events on a common clock, indexed the ways attribution walks them: per rank in
// issue order, per step, and per collective instance (matched across ranks by identifiers).
// Raw timestamps stay untouched in RunData; aligned times are derived here once.

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "culprit/analysis/alignment.hpp"
#include "culprit/analysis/step_times.hpp"
#include "culprit/storage/run_data.hpp"

namespace culprit::analysis {

using EventIndex = std::int32_t;  // index into RunData::events; -1 = none
inline constexpr EventIndex kNoEvent = -1;
// The most events one run can hold for analysis (EventIndex's range); build_timeline refuses
// more, and `culprit run` refuses a simulated configuration that would give more.
inline constexpr std::int64_t kMaxRunEvents = std::numeric_limits<EventIndex>::max();

// A phase is a rank's own work (compute, or host work it names), as against a step, a collective
// or a wait: what phase statistics compare across ranks and efficiency counts as busy.
inline bool is_phase(const storage::Event& e) {
  return e.kind == storage::EventKind::kCompute || e.kind == storage::EventKind::kHost;
}

// The aligned begin (or end) of every event on rank 0's clock: the rank's clock model, then the
// refinement's correction (0 for an event whose rank is outside the run). Stored for runs of up to
// kStoredAlignedEvents events (the walks read them often); computed when read for larger ones,
// where storing them would take 16 bytes an event (1.7 GB at 131,072 ranks x 50 steps). Either
// way the same double.
inline constexpr std::size_t kStoredAlignedEvents = std::size_t{1} << 25;

class AlignedTimes {
 public:
  AlignedTimes() = default;
  AlignedTimes(const storage::RunData& run, std::vector<double> correction_ns, bool end)
      : run_(&run), correction_ns_(std::move(correction_ns)), end_(end) {
    if (run.events.size() > kStoredAlignedEvents) return;
    stored_.resize(run.events.size());
    for (std::size_t e = 0; e < stored_.size(); ++e) stored_[e] = compute(e);
  }
  double operator[](std::size_t e) const { return stored_.empty() ? compute(e) : stored_[e]; }
  std::size_t size() const { return run_ ? run_->events.size() : 0; }

 private:
  double compute(std::size_t e) const {
    const storage::Event& x = run_->events[e];
    const auto r = static_cast<std::size_t>(x.rank);
    if (r >= correction_ns_.size()) return 0.0;
    return run_->clocks[r].aligned(end_ ? x.end_ns : x.begin_ns) + correction_ns_[r];
  }

  const storage::RunData* run_ = nullptr;
  std::vector<double> correction_ns_;  // per rank
  bool end_ = false;
  std::vector<double> stored_;  // empty: computed when read
};

struct Timeline {
  const storage::RunData* run = nullptr;
  std::vector<RankAlignment> alignment;  // per rank
  AlignedTimes begin_ns;                 // aligned begin of each event (rank 0's clock)
  AlignedTimes end_ns;                   // aligned end of each event
  // Per rank, the non-step events ordered by aligned begin, and the same set ordered by end.
  std::vector<std::vector<EventIndex>> by_begin;
  std::vector<std::vector<EventIndex>> by_end;
  // An event's index inside by_begin[its rank]: stored per event for runs of up to
  // kStoredAlignedEvents events; in larger ones stored for collectives (the hot queries) and a
  // binary search for the rest (by_begin is in (begin, end) order), 4 bytes an event less.
  std::int32_t position(EventIndex e) const;
  std::vector<std::int32_t> event_position;                    // empty in large runs
  std::vector<std::vector<std::int32_t>> collective_position;  // [collective][rank]
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
// Throws std::invalid_argument for a run of more than kMaxRunEvents events.
Timeline build_timeline(const storage::RunData& run);

}  // namespace culprit::analysis
