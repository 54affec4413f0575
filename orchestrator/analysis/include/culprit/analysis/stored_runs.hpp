#pragma once
// What attribution reads from the results store besides a run's events: the configurations of
// an experiment with their successful runs, and the device peak FLOP/s from a configuration's
// model section (never the injection section: that is the truth attribution must not see).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "culprit/storage/db.hpp"
#include "stepmodel/config.hpp"

namespace culprit::analysis {

struct StoredRun {
  std::int64_t id = 0;
  double median_ms = 0;  // as the launcher recorded it
};

struct StoredConfig {
  std::int64_t id = 0;
  std::string label;
  std::string factor;
  std::string level_json;
  bool is_baseline = false;
  std::vector<StoredRun> ok_runs;  // ordered by median
};

struct StoredExperimentRuns {
  std::int64_t id = 0;
  std::string name;
  std::vector<StoredConfig> configs;  // the baseline first
};

// The experiment `name`, or the most recent one when empty. Throws culprit::UsageError when the
// store holds no such experiment.
StoredExperimentRuns load_experiment_runs(storage::Db& store, const std::string& name);

// The run's resolved configuration (resolved_json, any phase names); nullopt without one (a
// hand-made run file's echo). Its injection section is the truth attribution must not read.
std::optional<stepmodel::RunConfig> stored_run_config(storage::Db& store, std::int64_t run_id);
// model.peak_flops of the run's configuration (resolved_json); 0 when absent or unknown.
double configured_peak_flops(storage::Db& store, std::int64_t run_id);
// Where the run computed, from its configuration: cpu | cuda | sim (an import: cpu or cuda, as
// its trace shows); empty when the run has no resolved configuration.
std::string configured_backend(storage::Db& store, std::int64_t run_id);

// The medians of the successful runs of `run_id`'s configuration (the run itself included):
// the run-to-run noise a model of that configuration should have.
std::vector<double> sibling_run_medians(storage::Db& store, std::int64_t run_id);
// Refuses (culprit::UsageError, saying why) a pair `culprit reduce` cannot compare: a missing
// run, one run given twice, runs of two experiments.
void check_reducible_pair(storage::Db& store, std::int64_t baseline_run,
                          std::int64_t candidate_run);

// The configuration's level_json as a boolean when it is one (model.overlap levels).
bool level_is_true(const StoredConfig& config);

}  // namespace culprit::analysis
