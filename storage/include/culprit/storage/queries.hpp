#pragma once
// Read-side queries of the results store used by `culprit runs` and `culprit export`.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "culprit/storage/db.hpp"

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

// Every stored step (only `ok` runs have steps), ordered by run then step.
std::vector<StepExport> export_steps(Db& store, const std::string& experiment = "");

}  // namespace culprit::storage
