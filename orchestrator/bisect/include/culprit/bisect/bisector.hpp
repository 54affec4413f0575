#pragma once
// The bisection (docs/methodology.md, "Bisection"): judge the endpoints pair by pair (the
// posterior or the paired verdict starts the search), then keep a posterior over where the step
// lies (stats/change_point.hpp) from every run measured so far, measure next the version that
// splits the posterior mass best, interleaved with fresh runs of the current bracket's ends;
// once an adjacent pair holds 0.6 its blocks are runs of both, fresh for it, and it is found
// when a planned look of the Hodges–Lehmann / Mann–Whitney verdict on its first n fresh runs is
// regressed (at the calibrated boundary of its looks, its share of the one-sided alpha / 2 the
// bisection spends over its locks) while the posterior holds it with >= 1 - alpha / 10.
// Untestable versions are skipped; a second step is reported.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "culprit/bisect/measurer.hpp"
#include "culprit/stats/compare.hpp"
#include "culprit/stats/sampling.hpp"

namespace culprit::bisect {

using stats::Verdict;

struct Options {
  int repetitions = 5;       // runs per version at the first look
  int max_repetitions = 20;  // cap per version
  int block = 0;             // runs added per look while inconclusive; 0 = `repetitions`
  double alpha = 0.05;       // error rate of the stopping rule and of each confirmation
  double margin = 0.02;      // practical margin on the relative shift (stats.margin)
  std::uint64_t seed = 1;    // order of the runs inside each interleaved block
};

enum class Status { kFound, kNotReproduced, kInconclusive };
std::string_view to_string(Status status);

// What one measured version turned out to be.
enum class Outcome {
  kGood,        // at the level of the last good version
  kBad,         // at the level of the first bad version
  kBetween,     // between both levels: more than one step in the range
  kUntestable,  // skipped (build failure, crashing runs)
  kUndecided,   // not decided when bisection ended
};
std::string_view to_string(Outcome outcome);

struct Step {
  // kEndpoints: first against last version; kMidpoint: a version the posterior chose;
  // kVerify: the confirmation of the culprit pair on fresh interleaved runs.
  enum class Kind { kEndpoints, kMidpoint, kVerify, kRecheck };
  Kind kind = Kind::kMidpoint;
  int index = 0;                             // the version judged
  Verdict vs_good = Verdict::kInconclusive;  // against the last good version of the bracket
  std::optional<Verdict> vs_bad;             // against the first bad one (midpoints only)
  Outcome outcome = Outcome::kUndecided;
  int n = 0;                // runs of the judged version
  std::string note;         // why it was untestable
  double probability = -1;  // midpoints: P(this version is bad); verify: P(the pair); -1: none
};
std::string_view to_string(Step::Kind kind);

// A second step: version `index` is measurably above the good level and below the bad one.
struct MultipleStep {
  int index = 0;                  // its most likely first bad version
  double shift_from_good_ms = 0;  // level from `index` on − good level
  double shift_to_bad_ms = 0;     // bad level − level from `index` on
  double probability = 0;         // posterior probability that this segment holds a step
};

struct Candidate {
  int index = 0;
  double probability = 0;  // posterior P(index is the first bad version)
};

// Whether the run-to-run noise lets the margin be reached within max_repetitions.
struct NoiseCheck {
  double cv = 0;  // robust run-to-run CV (sigma of log run medians)
  int max_repetitions = 0;
  double mde_at_cap = 0;  // relative step detectable at max_repetitions runs per version
  int runs_needed = 0;    // runs per version at which the step would be detectable
  bool limited = false;   // the step (or the margin) is below mde_at_cap: stopped early
  std::string advice;     // what to do when limited
};

struct Result {
  Status status = Status::kInconclusive;
  std::vector<std::string> versions;
  // found: the culprit pair; inconclusive: the remaining range; not_reproduced: the endpoints.
  int last_good = -1;
  int first_bad = -1;
  // first_bad against last_good (the confirmation), or the endpoints when not confirmed.
  stats::Comparison shift;
  int runs = 0;                            // run medians used, over all versions
  std::vector<Step> steps;                 // in the order they were decided
  std::vector<int> skipped;                // every untestable version met
  std::vector<int> untestable_candidates;  // untestable versions between last_good, first_bad
  std::vector<Candidate> candidates;       // top posterior candidates, most likely first
  double no_step_probability = 0;          // posterior P(no step at all)
  std::vector<MultipleStep> multiple_steps;
  NoiseCheck noise;
  std::string message;  // one line for humans on how it ended
};

// `versions` are ordered: versions.front() good, versions.back() bad (at least two).
// Throws culprit::UsageError for fewer than two versions or bad options, culprit::RunError
// when an endpoint is untestable; measurer errors other than Untestable propagate.
Result run_bisection(const std::vector<std::string>& versions, Measurer& measurer,
                     const Options& options);

// The sampling plan of one comparison (first look, cap, block, alpha, margin).
stats::SamplingPlan sampling_plan(const Options& options);

// One comparison through stats::sample_adaptively (the one adaptive loop).
using PairJudgement = stats::AdaptiveJudgement;
using PairSamples = stats::SampledPair;

// `culprit verdict`: candidate against baseline (measurer indexes). Untestable propagates.
PairJudgement judge_pair(Measurer& measurer, int baseline, int candidate, const Options& options);

}  // namespace culprit::bisect
