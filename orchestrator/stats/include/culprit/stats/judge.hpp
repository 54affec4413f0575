#pragma once
// The one judgement of a stored experiment: its settings as it ran (storage's
// experiment_settings, stored when it was registered), the overall alpha split over the looks
// its runs show (alpha_per_look), and every comparison at that level. compare, explain, report
// and validate all call judge_experiment, so they cannot judge one experiment at two levels.

#include <optional>
#include <string>

#include "culprit/stats/stored.hpp"

namespace culprit::stats {

// How the comparisons were tested, for headings and JSON.
struct JudgingSettings {
  double alpha = 0.05;                 // overall, two-sided
  int looks = 1;                       // the looks of adaptive sampling alpha is split over
  bool looks_planned = false;          // true: every planned look ([stats] sampling = "adaptive"),
                                       // false: the looks the runs show
  double alpha_per_comparison = 0.05;  // what each comparison was tested at: alpha / looks
  double margin = 0.02;                // practical margin on the relative shift
  std::string source;                  // where alpha and margin came from
};

struct JudgeRequest {
  std::string baseline_label;   // empty: the experiment's baseline configuration
  std::string candidate_label;  // empty: every other configuration
  std::optional<double> alpha;  // the user's override of the stored overall alpha
  std::optional<double> margin;
};

struct Judgement {
  JudgingSettings settings;
  StoredComparisons comparisons;
};

// The experiment's settings as stored ("as it ran"); defaults (alpha 0.05, margin 0.02) with
// the reason as `source` for an imported experiment or one stored before culprit kept them.
JudgingSettings stored_judging_settings(storage::Db& store, const StoredExperiment& experiment);

// Judges `experiment` as requested. Throws culprit::UsageError as compare_stored does.
Judgement judge_experiment(storage::Db& store, const StoredExperiment& experiment,
                           const JudgeRequest& request);

}  // namespace culprit::stats
