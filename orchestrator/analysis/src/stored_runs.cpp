#include "culprit/analysis/stored_runs.hpp"

#include <simdjson.h>

#include <algorithm>
#include <stdexcept>

#include "culprit/errors.hpp"
#include "culprit/storage/queries.hpp"
#include "stepmodel/config.hpp"

namespace culprit::analysis {

StoredExperimentRuns load_experiment_runs(storage::Db& store, const std::string& name) {
  storage::ExperimentRuns stored = storage::load_experiment_runs(store, name);
  StoredExperimentRuns result;
  result.id = stored.experiment.id;
  result.name = std::move(stored.experiment.name);
  for (storage::ConfigurationRuns& entry : stored.configs) {
    StoredConfig c;
    c.id = entry.config.id;
    c.label = std::move(entry.config.label);
    c.factor = std::move(entry.config.factor);
    c.level_json = std::move(entry.config.level_json);
    c.is_baseline = entry.config.is_baseline;
    for (const storage::OkRun& run : entry.ok_runs) c.ok_runs.push_back({run.id, run.median_ms});
    std::sort(c.ok_runs.begin(), c.ok_runs.end(), [](const StoredRun& a, const StoredRun& b) {
      return a.median_ms != b.median_ms ? a.median_ms < b.median_ms : a.id < b.id;
    });
    result.configs.push_back(std::move(c));
  }
  return result;
}

std::optional<stepmodel::RunConfig> stored_run_config(storage::Db& store, std::int64_t run_id) {
  const std::optional<std::string> text = storage::resolved_json_of_run(store, run_id);
  if (!text) return std::nullopt;
  try {
    // Any phase name: a program with its own command has its own.
    return stepmodel::parse_run_config(*text, stepmodel::PhaseNames::kAny);
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // no resolved configuration at all (a hand-made run file's echo)
  }
}

double configured_peak_flops(storage::Db& store, std::int64_t run_id) {
  // Only the model section is used: the injection section is the truth attribution must not see.
  const auto config = stored_run_config(store, run_id);
  if (!config || config->import) return 0.0;  // unknown; an import has no model
  return config->model.peak_flops;
}

std::string configured_backend(storage::Db& store, std::int64_t run_id) {
  const auto config = stored_run_config(store, run_id);
  return config ? config->backend : "";
}

std::vector<double> sibling_run_medians(storage::Db& store, std::int64_t run_id) {
  return storage::sibling_ok_medians(store, run_id);
}

void check_reducible_pair(storage::Db& store, std::int64_t baseline_run,
                          std::int64_t candidate_run) {
  if (baseline_run == candidate_run) {
    throw UsageError("run " + std::to_string(baseline_run) +
                     " is both the baseline and the candidate: reduce reproduces the change "
                     "from one run to another; pass two different runs (see `culprit runs`)");
  }
  std::vector<storage::RunSummary> runs;
  for (const std::int64_t id : {baseline_run, candidate_run}) {
    auto run = storage::find_run(store, id);
    if (!run) {
      throw UsageError("no run " + std::to_string(id) + " in the store: see `culprit runs`");
    }
    if (run->status != "ok") {
      throw UsageError("run " + std::to_string(id) + " is " + run->status +
                       ", not ok: reduce needs two successful runs (see `culprit runs`)");
    }
    runs.push_back(std::move(*run));
  }
  if (runs[0].experiment != runs[1].experiment) {
    throw UsageError("runs " + std::to_string(baseline_run) + " and " +
                     std::to_string(candidate_run) + " belong to the experiments '" +
                     runs[0].experiment + "' and '" + runs[1].experiment +
                     "': reduce compares a baseline and a candidate of one experiment (the same "
                     "job and model); pick two runs of one experiment, or import both with the "
                     "same --experiment");
  }
}

bool level_is_true(const StoredConfig& config) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(config.level_json).get(doc)) return false;
  bool flag = false;
  if (!doc.get_bool().get(flag)) return flag;
  return false;
}

}  // namespace culprit::analysis
