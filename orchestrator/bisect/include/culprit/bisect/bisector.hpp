#pragma once
// The bisection state machine (docs/methodology.md, "Bisection"): confirm the endpoints, then
// binary search where every midpoint is judged against both ends of the remaining range, with
// adaptive sampling, skipped untestable versions, detection of more than one step, and a final
// check of the culprit against its predecessor.

#include <optional>
#include <string>
#include <vector>

#include "culprit/bisect/measurer.hpp"
#include "culprit/stats/compare.hpp"

namespace culprit::bisect {

using stats::Verdict;

struct Options {
  int repetitions = 5;       // runs per version at the first look
  int max_repetitions = 20;  // cap per version
  int block = 0;             // runs added per look while inconclusive; 0 = `repetitions`
  double alpha = 0.05;       // split evenly over the planned looks of one comparison
  double margin = 0.02;      // practical margin on the relative shift (stats.margin)
};

enum class Status { kFound, kNotReproduced, kInconclusive };
std::string_view to_string(Status status);

// What one judged version turned out to be.
enum class Outcome {
  kGood,        // at the level of the last good version
  kBad,         // at the level of the first bad version
  kBetween,     // between both levels: more than one step in the range
  kUntestable,  // skipped (build failure, crashing runs)
  kUndecided,   // still inconclusive at the cap
};
std::string_view to_string(Outcome outcome);

struct Step {
  // kRecheck: whether the remaining range still holds a regression, after a midpoint stayed
  // undecided; when it does not, an earlier decision is undone and judged again.
  enum class Kind { kEndpoints, kMidpoint, kVerify, kRecheck };
  Kind kind = Kind::kMidpoint;
  int index = 0;                             // the version judged
  Verdict vs_good = Verdict::kInconclusive;  // against the last good version (the reference)
  std::optional<Verdict> vs_bad;             // against the first bad version (midpoints only)
  Outcome outcome = Outcome::kUndecided;
  int n = 0;         // runs of the judged version when decided
  std::string note;  // why it was untestable
};
std::string_view to_string(Step::Kind kind);

// A version measurably slower than the last good one and faster than the first bad one.
struct MultipleStep {
  int index = 0;
  double shift_from_good_ms = 0;  // version − last good
  double shift_to_bad_ms = 0;     // first bad − version
};

struct Result {
  Status status = Status::kInconclusive;
  std::vector<std::string> versions;
  // found: the culprit pair; inconclusive: the remaining range; not_reproduced: the endpoints.
  int last_good = -1;
  int first_bad = -1;
  // first_bad against last_good (the final check), or the endpoints when not reproduced.
  stats::Comparison shift;
  int runs = 0;                 // run medians used, over all versions
  std::vector<Step> steps;      // in the order they were decided
  std::vector<int> skipped;     // every untestable version met
  std::vector<int> candidates;  // untestable versions between last_good and first_bad
  std::vector<MultipleStep> multiple_steps;
  std::string message;  // one line for humans on how it ended
};

// `versions` are ordered: versions.front() good, versions.back() bad (at least two).
// Throws culprit::UsageError for fewer than two versions or bad options, culprit::RunError
// when an endpoint is untestable; measurer errors other than Untestable propagate.
Result run_bisection(const std::vector<std::string>& versions, Measurer& measurer,
                     const Options& options);

// Runs per version at each look: repetitions, + block, ..., max_repetitions.
std::vector<int> look_schedule(const Options& options);

// One comparison with adaptive sampling (what `culprit verdict` needs): candidate against
// baseline (measurer indexes), adding runs while inconclusive, up to the cap. Untestable
// propagates.
struct PairJudgement {
  stats::Comparison comparison;
  int n = 0;  // runs per version at the deciding look
};
PairJudgement judge_pair(Measurer& measurer, int baseline, int candidate, const Options& options);

}  // namespace culprit::bisect
