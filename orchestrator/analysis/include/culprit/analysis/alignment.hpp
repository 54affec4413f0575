#pragma once
// Putting every rank on rank 0's clock. The clock model of each rank (ping-pong, linear drift)
// gives a first estimate within its stated uncertainty; synchronizing collectives then refine
// it: no rank can complete a collective before the last rank arrived, and completions nearly
// coincide. What is left is kept as a per-rank uncertainty, so that a skew smaller than it is
// reported as "cannot decide" rather than guessed.

#include <cstdint>
#include <vector>

#include "culprit/storage/run_data.hpp"

namespace culprit::analysis {

// A collective instance's identity, the same on every rank: (step, seq, name).
struct CollectiveId {
  std::int32_t step = 0;
  std::int32_t seq = 0;
  std::uint16_t name = 0;
};

// One collective instance, matched on every rank by identifiers (step, seq, name), never by
// timestamps. `event[r]` indexes RunData::events.
struct CollectiveGroup : CollectiveId {
  std::vector<std::int32_t> event;
};

struct RankAlignment {
  double correction_ns = 0;   // added to the clock model's aligned time
  double uncertainty_ns = 0;  // |error| bound of the refined aligned time
  // The clock model contradicted causality by more than its stated uncertainty (e.g. a clock
  // that stepped); the causality bounds were used instead.
  bool model_contradicted = false;
};

// Refines each rank's clock model against rank 0 using the collectives every rank took part in.
// Rank 0 keeps correction 0 and uncertainty 0.
std::vector<RankAlignment> refine_alignment(const storage::RunData& run,
                                            const std::vector<CollectiveGroup>& collectives);

}  // namespace culprit::analysis
