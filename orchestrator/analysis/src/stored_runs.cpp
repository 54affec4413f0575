#include "culprit/analysis/stored_runs.hpp"

#include <simdjson.h>

#include <algorithm>

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

double configured_peak_flops(storage::Db& store, std::int64_t run_id) {
  const std::optional<std::string> text = storage::resolved_json_of_run(store, run_id);
  if (!text) return 0.0;
  try {
    // Only the model section is used: the injection section is the truth attribution must not
    // see. Any phase name: a program with its own command has its own.
    const stepmodel::RunConfig config =
        stepmodel::parse_run_config(*text, stepmodel::PhaseNames::kAny);
    return config.model.peak_flops;
  } catch (const std::invalid_argument&) {
    return 0.0;  // not a resolved configuration (an imported run's): unknown
  }
}

std::vector<double> sibling_run_medians(storage::Db& store, std::int64_t run_id) {
  return storage::sibling_ok_medians(store, run_id);
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
