#pragma once
// Read-side queries of the results store: experiment -> configurations -> runs (what compare,
// explain, validate and report read), `culprit runs` and `culprit export`.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "culprit/storage/db.hpp"
#include "culprit/storage/records.hpp"

namespace culprit::storage {

struct RunSummary {
  std::int64_t id = 0;
  std::string experiment;
  std::string config;  // configuration label
  int repetition = 0;
  int position = 0;
  int attempt = 1;
  std::string status;
  std::optional<double> median_ms;
  std::string started_at;  // "" when never started
  std::string error;
};

// Throws culprit::UsageError listing the stored experiments when `experiment` is not empty and
// not one of them (a typo must not look like an empty result).
void check_experiment_exists(Db& store, const std::string& experiment);

// Every run, or only those of `experiment` when not empty, in execution order.
std::vector<RunSummary> list_runs(Db& store, const std::string& experiment = "");

struct StepExport {
  std::int64_t run_id = 0;
  std::string experiment;
  std::string config;
  int repetition = 0;
  int step = 0;
  double time_ms = 0;
  int last_rank = -1;
  bool warmup = false;
};

// One `ok` run with a median: a sample of its configuration.
struct OkRun {
  std::int64_t id = 0;
  int repetition = 0;
  int position = 0;
  double median_ms = 0;  // as the launcher recorded it
  std::string binding;   // the launcher's binding policy ("" when not recorded)
};

struct ConfigurationRuns {
  ConfigurationRecord config;
  std::vector<OkRun> ok_runs;  // in execution order (position, then id)
};

struct ExperimentRuns {
  ExperimentRecord experiment;
  std::vector<ConfigurationRuns> configs;  // the baseline first, then in insertion order;
                                           // superseded configurations left out
};

// The experiment called `name`, or when `name` is empty the latest one: the most recently
// created (created_at), of equal times the last inserted. Throws culprit::UsageError when the
// store holds no such experiment.
ExperimentRuns load_experiment_runs(Db& store, const std::string& name);

// The `ok` runs with a median of one configuration, in execution order.
std::vector<OkRun> ok_runs(Db& store, std::int64_t config_id);

// The medians of the `ok` runs of the experiment's configuration with `config_hash`, by
// repetition (empty when there is no such configuration).
std::vector<double> ok_medians_by_hash(Db& store, std::int64_t experiment_id,
                                       const std::string& config_hash);

// The medians of the `ok` runs of `run_id`'s configuration (the run itself included), by id.
std::vector<double> sibling_ok_medians(Db& store, std::int64_t run_id);

// The resolved_json of `run_id`'s configuration; nullopt when there is no such run.
std::optional<std::string> resolved_json_of_run(Db& store, std::int64_t run_id);

// The distinct values of provenance `key` over the configuration's `ok` runs: of every rank,
// or only the job-wide ones (rank -1) when `job_only`.
std::set<std::string> ok_run_provenance(Db& store, std::int64_t config_id, const std::string& key,
                                        bool job_only);

// The experiment's first `ok` run whose run meta `key` is `value`; nullopt when it has none.
std::optional<RunSummary> find_ok_run_by_meta(Db& store, std::int64_t experiment_id,
                                              const std::string& key, const std::string& value);

// One run as `culprit runs` lists it; nullopt when there is no such run.
std::optional<RunSummary> find_run(Db& store, std::int64_t run_id);

// Every run row of the store.
std::int64_t count_runs(Db& store);

struct PlannedRunCounts {
  int ok = 0;
  int finished = 0;  // ok, failed, timeout or crashed
};
// The runs of `experiment` among the first `repetitions` repetitions of each configuration.
PlannedRunCounts count_planned_runs(Db& store, const std::string& experiment, int repetitions);

// Every stored step (only `ok` runs have steps), ordered by run then step.
std::vector<StepExport> export_steps(Db& store, const std::string& experiment = "");

}  // namespace culprit::storage
