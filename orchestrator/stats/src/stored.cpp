#include "culprit/stats/stored.hpp"

#include <algorithm>
#include <set>

#include "culprit/errors.hpp"
#include "culprit/storage/db.hpp"

namespace culprit::stats {
namespace {

std::string joined(const std::set<std::string>& values) {
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : ",") + v;
  return out;
}

// Distinct non-empty values of one SQL column for the configuration's ok runs.
std::set<std::string> distinct_values(storage::Db& store, const char* sql, std::int64_t config_id) {
  storage::Statement stmt(store, sql);
  stmt.bind(1, config_id);
  std::set<std::string> values;
  while (stmt.step()) {
    std::string value = stmt.column_text(0);
    if (!value.empty()) values.insert(std::move(value));
  }
  return values;
}

EnvironmentFacts load_environment(storage::Db& store, std::int64_t config_id,
                                  const std::string& backend) {
  EnvironmentFacts facts;
  if (!backend.empty()) facts["backend"] = backend;
  const auto put = [&facts](const char* key, const std::set<std::string>& values) {
    if (!values.empty()) facts[key] = joined(values);
  };
  put("binding", distinct_values(store,
                                 "SELECT DISTINCT binding FROM runs WHERE config_id = ?1 AND "
                                 "status = 'ok'",
                                 config_id));
  put("hosts", distinct_values(store,
                               "SELECT DISTINCT p.value FROM provenance p JOIN runs r ON "
                               "r.id = p.run_id WHERE r.config_id = ?1 AND r.status = 'ok' AND "
                               "p.key = 'host'",
                               config_id));
  for (const char* key : {"ranks_per_core", "yield_mode"}) {
    storage::Statement stmt(store,
                            "SELECT DISTINCT p.value FROM provenance p JOIN runs r ON "
                            "r.id = p.run_id WHERE r.config_id = ?1 AND r.status = 'ok' AND "
                            "p.rank = -1 AND p.key = ?2");
    stmt.bind(1, config_id).bind(2, key);
    std::set<std::string> values;
    while (stmt.step()) values.insert(stmt.column_text(0));
    put(key, values);
  }
  return facts;
}

const StoredConfiguration& find_config(const StoredExperiment& experiment,
                                       const std::string& label) {
  for (const auto& config : experiment.configs) {
    if (config.label == label) return config;
  }
  std::string known;
  for (const auto& config : experiment.configs) known += " '" + config.label + "'";
  throw UsageError("compare: experiment '" + experiment.name + "' has no configuration '" + label +
                   "'; its configurations are:" + known);
}

const StoredConfiguration& baseline_of(const StoredExperiment& experiment) {
  for (const auto& config : experiment.configs) {
    if (config.is_baseline) return config;
  }
  throw UsageError("compare: experiment '" + experiment.name +
                   "' has no baseline configuration; name one with --baseline LABEL");
}

void require_runs(const StoredConfiguration& config) {
  if (config.medians_ms.empty()) {
    throw UsageError("compare: configuration '" + config.label +
                     "' has no successful runs; see `culprit runs` for their status and run "
                     "the experiment again (`culprit run` resumes)");
  }
}

StoredComparison compare_pair(const StoredConfiguration& a, const StoredConfiguration& b,
                              const ComparisonRequest& request) {
  // The candidate's varied factor explains the difference; when neither side is the baseline
  // both factors are legitimately different, so only facts neither explains are refused.
  const std::vector<std::string> by_candidate =
      differing_environment(a.environment, b.environment, b.factor);
  const std::vector<std::string> by_baseline =
      differing_environment(a.environment, b.environment, a.factor);
  std::vector<std::string> unexplained;
  std::set_intersection(by_candidate.begin(), by_candidate.end(), by_baseline.begin(),
                        by_baseline.end(), std::back_inserter(unexplained));
  if (!unexplained.empty()) {
    EnvironmentFacts ea, eb;
    for (const std::string& key : unexplained) {
      if (a.environment.count(key)) ea[key] = a.environment.at(key);
      if (b.environment.count(key)) eb[key] = b.environment.at(key);
    }
    require_same_environment(ea, eb, b.factor.empty() ? a.factor : b.factor, a.label, b.label);
  }

  StoredComparison out;
  out.baseline_label = a.label;
  out.candidate_label = b.label;
  out.factor = b.factor;
  out.baseline = summarize(a.medians_ms, request.summary_confidence);
  out.candidate = summarize(b.medians_ms, request.summary_confidence);
  out.baseline_ms = a.medians_ms;
  out.candidate_ms = b.medians_ms;
  out.comparison = compare(a.medians_ms, b.medians_ms, request.options);
  return out;
}

}  // namespace

StoredExperiment load_stored_experiment(storage::Db& store, const std::string& name) {
  StoredExperiment experiment;
  {
    storage::Statement stmt(
        store,
        "SELECT id, name, manifest_path, manifest_text FROM experiments WHERE ?1 = '' OR name = ?1 "
        "ORDER BY created_at DESC, id DESC LIMIT 1");
    stmt.bind(1, name);
    if (!stmt.step()) {
      throw UsageError(name.empty()
                           ? "compare: the store " + store.path() +
                                 " holds no experiment yet; run one with `culprit run MANIFEST`"
                           : "compare: the store " + store.path() + " has no experiment '" + name +
                                 "'; `culprit runs` lists what it holds");
    }
    experiment.id = stmt.column_int(0);
    experiment.name = stmt.column_text(1);
    experiment.manifest_path = stmt.column_text(2);
    experiment.manifest_text = stmt.column_text(3);
  }
  storage::Statement configs(store,
                             "SELECT id, label, factor, is_baseline, backend FROM configurations "
                             "WHERE experiment_id = ?1 ORDER BY is_baseline DESC, id");
  configs.bind(1, experiment.id);
  while (configs.step()) {
    StoredConfiguration config;
    config.id = configs.column_int(0);
    config.label = configs.column_text(1);
    config.factor = configs.column_text(2);
    config.is_baseline = configs.column_int(3) != 0;
    const std::string backend = configs.column_text(4);
    storage::Statement runs(store,
                            "SELECT median_ms FROM runs WHERE config_id = ?1 AND status = 'ok' "
                            "AND median_ms IS NOT NULL ORDER BY position, id");
    runs.bind(1, config.id);
    while (runs.step()) config.medians_ms.push_back(runs.column_double(0));
    config.environment = load_environment(store, config.id, backend);
    experiment.configs.push_back(std::move(config));
  }
  return experiment;
}

StoredComparisons compare_stored(const StoredExperiment& experiment,
                                 const ComparisonRequest& request) {
  StoredComparisons out;
  out.experiment = experiment.name;
  const StoredConfiguration& baseline = request.baseline_label.empty()
                                            ? baseline_of(experiment)
                                            : find_config(experiment, request.baseline_label);
  require_runs(baseline);
  if (!request.candidate_label.empty()) {
    const StoredConfiguration& candidate = find_config(experiment, request.candidate_label);
    require_runs(candidate);
    out.comparisons.push_back(compare_pair(baseline, candidate, request));
    return out;
  }
  for (const auto& candidate : experiment.configs) {
    if (candidate.id == baseline.id) continue;
    if (candidate.medians_ms.empty()) {
      out.skipped.push_back({candidate.label, "no successful runs"});
      continue;
    }
    out.comparisons.push_back(compare_pair(baseline, candidate, request));
  }
  if (out.comparisons.empty() && out.skipped.empty()) {
    throw UsageError("compare: experiment '" + experiment.name +
                     "' has only one configuration; nothing to compare it with");
  }
  return out;
}

}  // namespace culprit::stats
