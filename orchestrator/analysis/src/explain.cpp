#include "culprit/analysis/explain.hpp"

#include <algorithm>
#include <cmath>

#include "culprit/errors.hpp"

namespace culprit::analysis {
namespace {

// Adds `weight` x the decomposition of `step` to `into`.
void accumulate(MedianStep& into, const StepDecomposition& step, double weight) {
  for (const Component& c : step.components) {
    into.components_ns[{c.category, c.rank, c.phase, c.layer}] += weight * c.ns;
  }
  into.unclassified_ns += weight * step.unclassified_ns;
  into.median_ms += weight * step.time_ns / 1e6;
}

// The steady steps at the median: one, or the two middle ones.
std::vector<const StepDecomposition*> middle_steps(const RunAttribution& run) {
  std::vector<const StepDecomposition*> steady;
  for (const StepAttribution& s : run.steps) {
    if (!s.decomposition.warmup) steady.push_back(&s.decomposition);
  }
  if (steady.empty()) return steady;
  std::sort(steady.begin(), steady.end(), [](auto* a, auto* b) { return a->time_ns < b->time_ns; });
  const std::size_t n = steady.size();
  if (n % 2 == 1) return {steady[n / 2]};
  return {steady[n / 2 - 1], steady[n / 2]};
}

std::int64_t centi(double ms) {
  return std::llround(ms * 100.0);
}

}  // namespace

MedianStep median_step(const std::string& label, const std::vector<RunAttribution>& runs) {
  MedianStep m;
  m.label = label;
  for (const RunAttribution& run : runs) {
    const auto steps = middle_steps(run);
    if (steps.empty()) {
      throw UsageError("run " + std::to_string(run.run_id) + " of configuration '" + label +
                       "' has no steady-state step to explain");
    }
    for (const StepDecomposition* s : steps) {
      accumulate(m, *s, 1.0 / static_cast<double>(steps.size() * runs.size()));
    }
    m.runs.push_back(run.run_id);
  }
  if (!runs.empty()) m.attribution = runs.front();
  return m;
}

MedianStep median_step(storage::Db& store, const StoredConfig& config,
                       const AttributionOptions& options) {
  const std::size_t n = config.ok_runs.size();
  if (n == 0) {
    throw UsageError("configuration '" + config.label +
                     "' has no successful run to explain: see `culprit runs`");
  }
  // ok_runs is ordered by median: the middle one, or the two middle ones.
  std::vector<StoredRun> middle = {config.ok_runs[(n - 1) / 2]};
  if (n % 2 == 0) middle.push_back(config.ok_runs[n / 2]);
  std::vector<RunAttribution> runs;
  for (const StoredRun& r : middle) {
    const storage::RunData data = storage::load_run(store, r.id);
    AttributionOptions with_peak = options;
    if (with_peak.peak_flops_per_device <= 0)
      with_peak.peak_flops_per_device = configured_peak_flops(store, r.id);
    runs.push_back(attribute_run(data, with_peak));
  }
  return median_step(config.label, runs);
}

Explanation explain(const MedianStep& baseline, const MedianStep& candidate) {
  Explanation e;
  e.baseline_label = baseline.label;
  e.candidate_label = candidate.label;
  e.baseline_median_ms = baseline.median_ms;
  e.candidate_median_ms = candidate.median_ms;
  e.baseline_runs = baseline.runs;
  e.candidate_runs = candidate.runs;
  e.culprit = candidate.attribution.culprit;
  e.symptom = candidate.attribution.symptom;
  e.baseline_activity = baseline.attribution.activity;
  e.candidate_activity = candidate.attribution.activity;

  std::map<MedianStep::Key, double> delta;
  for (const auto& [key, ns] : candidate.components_ns) delta[key] += ns;
  for (const auto& [key, ns] : baseline.components_ns) delta[key] -= ns;
  // State everything in whole hundredths of a millisecond so the sum is exact as printed.
  const std::int64_t total = centi(candidate.median_ms - baseline.median_ms);
  std::int64_t explained = 0;
  for (const auto& [key, ns] : delta) {
    const std::int64_t c = centi(ns / 1e6);
    if (c == 0) continue;
    ExplainedComponent x;
    std::tie(x.category, x.rank, x.phase, x.layer) = key;
    x.ms = static_cast<double>(c) / 100.0;
    x.first_divergence = e.culprit.found && x.category == Category::kStraggler &&
                         x.rank == e.culprit.rank && x.phase == e.culprit.phase &&
                         (e.culprit.layer < 0 || x.layer == e.culprit.layer);
    e.components.push_back(std::move(x));
    explained += c;
  }
  std::stable_sort(e.components.begin(), e.components.end(),
                   [](const auto& a, const auto& b) { return std::abs(a.ms) > std::abs(b.ms); });
  e.delta_ms = static_cast<double>(total) / 100.0;
  e.unclassified_ms = static_cast<double>(total - explained) / 100.0;
  return e;
}

StoredExplanations explain_stored(storage::Db& store, const std::string& experiment,
                                  const std::string& baseline_label,
                                  const std::string& candidate_label,
                                  const AttributionOptions& options) {
  const StoredExperimentRuns stored = load_experiment_runs(store, experiment);
  auto find = [&](const std::string& label) -> const StoredConfig& {
    std::string known;
    for (const StoredConfig& c : stored.configs) {
      if (c.label == label) return c;
      known += (known.empty() ? "" : ", ") + c.label;
    }
    throw UsageError("configuration '" + label + "' is not in experiment '" + stored.name +
                     "'; known: " + known);
  };
  const StoredConfig* baseline = nullptr;
  if (!baseline_label.empty()) {
    baseline = &find(baseline_label);
  } else {
    for (const StoredConfig& c : stored.configs) {
      if (c.is_baseline) baseline = &c;
    }
    if (!baseline) throw UsageError("experiment '" + stored.name + "' has no baseline: name one");
  }
  std::vector<const StoredConfig*> candidates;
  if (!candidate_label.empty()) {
    candidates.push_back(&find(candidate_label));
  } else {
    for (const StoredConfig& c : stored.configs) {
      if (&c != baseline) candidates.push_back(&c);
    }
  }
  if (candidates.empty()) {  // it printed nothing and exited 0
    throw UsageError("explain: experiment '" + stored.name + "' has only one configuration ('" +
                     baseline->label +
                     "'); nothing to explain it against: run or import a second one (e.g. "
                     "`culprit import ... --label candidate`)");
  }
  StoredExplanations result;
  result.experiment = stored.name;
  const MedianStep base = median_step(store, *baseline, options);
  result.baseline_attribution = base.attribution;
  for (const StoredConfig* c : candidates) {
    if (c->ok_runs.empty() && candidate_label.empty()) {
      result.skipped.emplace_back(c->label, "no successful run");
      continue;
    }
    const MedianStep candidate = median_step(store, *c, options);
    Explanation e = explain(base, candidate);
    if (c->factor == "model.overlap") {
      // One factor at a time: the baseline runs the other overlap setting.
      const bool candidate_overlaps = level_is_true(*c);
      const MedianStep& on = candidate_overlaps ? candidate : base;
      const MedianStep& off = candidate_overlaps ? base : candidate;
      e.useful_overlap_ms = off.median_ms - on.median_ms;
      e.visual_overlap = on.attribution.efficiency.visual_overlap;
    }
    result.explanations.push_back(std::move(e));
    result.candidate_attributions.push_back(candidate.attribution);
  }
  return result;
}

}  // namespace culprit::analysis
