#pragma once
// Comparisons of configurations recorded in the results store: loads each configuration's
// `ok` run medians and environment facts, checks that compared configurations differ only in
// the varied factor, and compares them (what `culprit compare` reports).

#include <cstdint>
#include <string>
#include <vector>

#include "culprit/stats/compare.hpp"
#include "culprit/stats/environment.hpp"
#include "culprit/stats/summary.hpp"

namespace culprit::storage {
class Db;
}

namespace culprit::stats {

struct StoredConfiguration {
  std::int64_t id = 0;
  std::string label;
  std::string factor;  // "" for the baseline
  bool is_baseline = false;
  std::vector<double> medians_ms;  // one per `ok` run, in execution order
  // ranks_per_core, yield_mode (job provenance), hosts (every rank's host), binding (the
  // launcher's policy), backend; several values across runs are joined with ",".
  EnvironmentFacts environment;
};

struct StoredExperiment {
  std::int64_t id = 0;
  std::string name;
  std::string manifest_path;
  std::string manifest_text;                 // as stored with the experiment
  std::vector<StoredConfiguration> configs;  // the baseline first, then in insertion order
};

// Loads the experiment called `name`, or the most recently created one when `name` is empty.
// Throws culprit::UsageError when the store has no such experiment.
StoredExperiment load_stored_experiment(storage::Db& store, const std::string& name);

struct ComparisonRequest {
  std::string baseline_label;   // empty: the experiment's baseline configuration
  std::string candidate_label;  // empty: every other configuration
  CompareOptions options;
  double summary_confidence = 0.95;
};

struct StoredComparison {
  std::string baseline_label;
  std::string candidate_label;
  std::string factor;  // the candidate's varied factor
  Summary baseline;
  Summary candidate;
  std::vector<double> baseline_ms;
  std::vector<double> candidate_ms;
  Comparison comparison;
};

struct SkippedConfiguration {
  std::string label;
  std::string reason;
};

struct StoredComparisons {
  std::string experiment;
  std::vector<StoredComparison> comparisons;
  std::vector<SkippedConfiguration> skipped;  // no successful runs (only when comparing all)
};

// Compares as requested. Throws culprit::UsageError for an unknown label (listing the known
// ones), a requested configuration without successful runs, or environments that differ in
// more than the varied factor (require_same_environment).
StoredComparisons compare_stored(const StoredExperiment& experiment,
                                 const ComparisonRequest& request);

}  // namespace culprit::stats
