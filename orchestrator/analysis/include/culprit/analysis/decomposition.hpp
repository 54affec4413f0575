#pragma once
// Step decomposition along the critical path (design.md, "Definitions"). Walking back from the
// end of step s on the rank that finished last: a phase contributes its typical time (the
// peers' median) and, when beyond noise, its excess as a straggler component of (rank, phase,
// layer); a collective contributes the transfer after the last arrival as exposed communication
// and the walk jumps to the last arriver; gaps between events are host gaps (a late call beyond
// noise is a straggler excess of the collective's phase). Time the walk cannot account for is
// unclassified. The components sum to the measured step time exactly. The earliest divergence
// met on the way is the step's first unexplained divergence: its culprit.

#include <cstdint>
#include <string>
#include <vector>

#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/phase_stats.hpp"
#include "culprit/analysis/timeline.hpp"

namespace culprit::analysis {

enum class Category : std::uint8_t { kTypical, kStraggler, kExposedComm, kHostGap };

// "typical", "straggler", "exposed_comm", "host_gap".
const char* category_name(Category category);

struct Component {
  Category category = Category::kTypical;
  int rank = -1;      // straggler components only
  std::string phase;  // empty for host gaps
  int layer = -1;     // straggler components only (for a late call: the bucket)
  double ns = 0;
};

struct Culprit {
  bool found = false;
  int rank = -1;
  std::string phase;
  int layer = -1;
  int microbatch = -1;
  int step = -1;        // the step the phase belongs to
  int collective = -1;  // seq of the collective the lateness reached first (-1: none)
  int collective_step = -1;
  double excess_ns = 0;
  double typical_ns = 0;
  double threshold_ns = 0;
  EventIndex event = kNoEvent;  // the phase's event; for a late call the collective's
  bool late_call = false;       // a host gap before a collective, not a phase: layer = bucket
};

struct StepDecomposition {
  int step = 0;
  bool warmup = false;
  double time_ns = 0;
  int last_finisher = -1;
  std::vector<Component> components;  // one per (category, rank, phase, layer)
  double unclassified_ns = 0;         // time - sum(components): what the walk could not explain
  Culprit culprit;
};

// One entry per Timeline::steps entry.
std::vector<StepDecomposition> decompose_steps(const Timeline& timeline,
                                               const std::vector<CollectiveTiming>& collectives,
                                               const PhaseStats& stats,
                                               const std::vector<int>& critical_arrivers);

}  // namespace culprit::analysis
