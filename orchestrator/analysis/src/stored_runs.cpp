#include "culprit/analysis/stored_runs.hpp"

#include <simdjson.h>

#include <algorithm>

#include "culprit/errors.hpp"
#include "stepmodel/config.hpp"

namespace culprit::analysis {

StoredExperimentRuns load_experiment_runs(storage::Db& store, const std::string& name) {
  StoredExperimentRuns result;
  {
    storage::Statement stmt(store, name.empty()
                                       ? "SELECT id, name FROM experiments ORDER BY id DESC LIMIT 1"
                                       : "SELECT id, name FROM experiments WHERE name = ?1");
    if (!name.empty()) stmt.bind(1, name);
    if (!stmt.step()) {
      throw UsageError(name.empty() ? "database " + store.path() +
                                          " holds no experiment: run `culprit run MANIFEST` first"
                                    : "experiment '" + name + "' is not in " + store.path() +
                                          ": list them with `culprit runs`");
    }
    result.id = stmt.column_int(0);
    result.name = stmt.column_text(1);
  }
  storage::Statement configs(
      store,
      "SELECT id, label, factor, level_json, is_baseline FROM configurations "
      "WHERE experiment_id = ?1 ORDER BY is_baseline DESC, id");
  configs.bind(1, result.id);
  while (configs.step()) {
    StoredConfig c;
    c.id = configs.column_int(0);
    c.label = configs.column_text(1);
    c.factor = configs.column_text(2);
    c.level_json = configs.column_text(3);
    c.is_baseline = configs.column_int(4) != 0;
    result.configs.push_back(std::move(c));
  }
  storage::Statement runs(store,
                          "SELECT id, median_ms FROM runs WHERE config_id = ?1 AND status = 'ok' "
                          "AND median_ms IS NOT NULL ORDER BY median_ms, id");
  for (StoredConfig& c : result.configs) {
    runs.bind(1, c.id);
    while (runs.step()) c.ok_runs.push_back({runs.column_int(0), runs.column_double(1)});
    runs.reset();
  }
  return result;
}

double configured_peak_flops(storage::Db& store, std::int64_t run_id) {
  storage::Statement stmt(store,
                          "SELECT c.resolved_json FROM runs r JOIN configurations c ON c.id = "
                          "r.config_id WHERE r.id = ?1");
  stmt.bind(1, run_id);
  if (!stmt.step()) return 0.0;
  try {
    // Only the model section is used: the injection section is the truth attribution must not
    // see. Any phase name: a program with its own command has its own.
    const stepmodel::RunConfig config =
        stepmodel::parse_run_config(stmt.column_text(0), stepmodel::PhaseNames::kAny);
    return config.model.peak_flops;
  } catch (const std::invalid_argument&) {
    return 0.0;  // not a resolved configuration (an imported run's): unknown
  }
}

std::vector<double> sibling_run_medians(storage::Db& store, std::int64_t run_id) {
  storage::Statement stmt(store,
                          "SELECT s.median_ms FROM runs r JOIN runs s ON s.config_id = r.config_id "
                          "WHERE r.id = ?1 AND s.status = 'ok' AND s.median_ms IS NOT NULL "
                          "ORDER BY s.id");
  stmt.bind(1, run_id);
  std::vector<double> medians;
  while (stmt.step()) medians.push_back(stmt.column_double(0));
  return medians;
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
