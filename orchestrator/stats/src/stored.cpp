#include "culprit/stats/stored.hpp"

#include <algorithm>
#include <set>

#include "culprit/errors.hpp"
#include "culprit/storage/queries.hpp"

namespace culprit::stats {
namespace {

std::string joined(const std::set<std::string>& values) {
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : ",") + v;
  return out;
}

std::set<std::string> non_empty(std::set<std::string> values) {
  values.erase("");
  return values;
}

EnvironmentFacts load_environment(storage::Db& store, const storage::ConfigurationRuns& entry) {
  EnvironmentFacts facts;
  if (!entry.config.backend.empty()) facts["backend"] = entry.config.backend;
  const auto put = [&facts](const char* key, const std::set<std::string>& values) {
    if (!values.empty()) facts[key] = joined(values);
  };
  std::set<std::string> bindings;
  for (const storage::OkRun& run : entry.ok_runs) bindings.insert(run.binding);
  put("binding", non_empty(std::move(bindings)));
  put("hosts", non_empty(storage::ok_run_provenance(store, entry.config.id, "host", false)));
  for (const char* key : {"ranks_per_core", "yield_mode"}) {
    put(key, storage::ok_run_provenance(store, entry.config.id, key, true));
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
  const storage::ExperimentRuns stored = storage::load_experiment_runs(store, name);
  StoredExperiment experiment;
  experiment.id = stored.experiment.id;
  experiment.name = stored.experiment.name;
  experiment.manifest_path = stored.experiment.manifest_path;
  experiment.manifest_text = stored.experiment.manifest_text;
  for (const storage::ConfigurationRuns& entry : stored.configs) {
    StoredConfiguration config;
    config.id = entry.config.id;
    config.label = entry.config.label;
    config.factor = entry.config.factor;
    config.is_baseline = entry.config.is_baseline;
    for (const storage::OkRun& run : entry.ok_runs) config.medians_ms.push_back(run.median_ms);
    config.environment = load_environment(store, entry);
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
