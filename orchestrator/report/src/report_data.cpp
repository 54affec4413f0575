// Gathers what `culprit report` shows, through the same core functions as compare, explain,
// attribute and validate.
#include <spdlog/spdlog.h>

#include <cmath>
#include <future>
#include <map>

#include "culprit/analysis/stored_runs.hpp"
#include "culprit/errors.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/report/html_report.hpp"
#include "culprit/stats/judge.hpp"
#include "culprit/storage/run_data.hpp"

namespace culprit::report {
namespace {

// The stored manifest, for the bisection path only (the judging settings are stored apart).
std::optional<manifest::Manifest> stored_manifest(const stats::StoredExperiment& experiment) {
  if (experiment.manifest_text.empty()) return std::nullopt;
  try {
    return manifest::parse_manifest(experiment.manifest_text, experiment.manifest_path);
  } catch (const std::exception& e) {
    spdlog::warn("the stored manifest of '{}' does not parse ({}): no bisection path",
                 experiment.name, e.what());
  }
  return std::nullopt;
}

}  // namespace

ReportData collect_report(storage::Db& store, const ReportOptions& options) {
  ReportData data;
  const stats::StoredExperiment experiment =
      stats::load_stored_experiment(store, options.experiment);
  data.experiment = experiment.name;
  const std::optional<manifest::Manifest> loaded = stored_manifest(experiment);
  data.settings = stats::stored_judging_settings(store, experiment);
  data.configurations = experiment.configs;

  int with_runs = 0;
  for (const stats::StoredConfiguration& c : experiment.configs)
    with_runs += c.medians_ms.empty() ? 0 : 1;
  if (with_runs == 0) {
    throw UsageError("experiment '" + experiment.name +
                     "' has no successful run to report on; see `culprit runs`");
  }
  try {
    const stats::Judgement judged = stats::judge_experiment(store, experiment, {});
    data.settings = judged.settings;
    data.compare = judged.comparisons;
  } catch (const UsageError& e) {
    data.compare.experiment = experiment.name;
    data.notes.push_back(std::string("no comparison: ") + e.what());
  }

  const analysis::StoredExperimentRuns runs =
      analysis::load_experiment_runs(store, experiment.name);
  const bool baseline_ok = !runs.configs.empty() && runs.configs.front().is_baseline &&
                           !runs.configs.front().ok_runs.empty();
  if (runs.configs.size() > 1 && baseline_ok) {
    data.explain = analysis::explain_stored(store, experiment.name, "", "", options.attribution);
    analysis::add_why(store, data.explain);  // the why block and the attached telemetry
  } else {
    data.explain.experiment = experiment.name;
    data.notes.push_back(
        runs.configs.size() > 1
            ? "no explanation: the baseline has no successful run"
            : "no explanation: the experiment has one configuration (nothing to compare with)");
  }

  // The run in the pictures: the candidate that moved the median most, else the baseline.
  std::size_t focus = data.explain.explanations.size();
  for (std::size_t i = 0; i < data.explain.explanations.size(); ++i) {
    if (focus == data.explain.explanations.size() ||
        std::abs(data.explain.explanations[i].delta_ms) >
            std::abs(data.explain.explanations[focus].delta_ms))
      focus = i;
  }
  if (focus < data.explain.explanations.size()) {
    const analysis::Explanation& e = data.explain.explanations[focus];
    data.focus_config = e.candidate_label;
    data.focus_why = "the configuration whose median moved most from the baseline";
    data.focus = data.explain.candidate_attributions[focus];
    data.baseline = data.explain.baseline_attribution;
    data.baseline_config = e.baseline_label;
  } else {
    const analysis::StoredConfig* config = nullptr;
    for (const analysis::StoredConfig& c : runs.configs) {
      if (!c.ok_runs.empty() && (!config || c.is_baseline)) config = &c;
    }
    const analysis::StoredRun& middle = config->ok_runs[(config->ok_runs.size() - 1) / 2];
    analysis::AttributionOptions attribution = options.attribution;
    if (attribution.peak_flops_per_device <= 0)
      attribution.peak_flops_per_device = analysis::configured_peak_flops(store, middle.id);
    data.focus_config = config->label;
    data.focus_why = "the run of median step time of the only configuration with runs";
    data.focus = analysis::attribute_run(storage::load_run(store, middle.id), attribution);
  }

  // The pictures of the focus run are made on their own connection (a reader of the same file)
  // while the scorecard is made on this one: on a large run they cost about as much as it.
  analysis::AttributionOptions attribution = options.attribution;
  if (attribution.peak_flops_per_device <= 0)
    attribution.peak_flops_per_device = analysis::configured_peak_flops(store, data.focus.run_id);
  std::future<analysis::RunFigures> figures =
      std::async(std::launch::async,
                 [&data, &options, attribution, path = store.path(), mode = store.reader_mode()] {
                   // Opened as the store was: a read-only store is read here too (issue 38 item
                   // 13).
                   storage::Db reader(path, mode);
                   const storage::RunData run = storage::load_run(reader, data.focus.run_id);
                   return analysis::run_figures(run, data.focus, attribution, options.figures);
                 });

  // The runs explain attributed are scored from those attributions (same options): each run is
  // loaded and attributed once per report.
  std::map<std::int64_t, analysis::RunAttribution> attributed;
  if (!data.explain.explanations.empty()) {
    attributed.emplace(data.explain.baseline_attribution.run_id, data.explain.baseline_attribution);
    for (const analysis::RunAttribution& a : data.explain.candidate_attributions)
      attributed.emplace(a.run_id, a);
  }
  analysis::Scorecard card =
      analysis::score_experiment(store, experiment.name, options.attribution, &attributed);
  if (!card.cases.empty()) {
    data.scorecard = std::move(card);
  } else {
    data.notes.push_back("no validate scorecard: no run of this experiment had an injected delay");
  }
  data.figures = figures.get();
  data.telemetry = analysis::stored_telemetry_map(store, data.focus.run_id);
  std::string why = "the experiment's manifest is not stored or does not parse";
  if (loaded) data.bisection = bisect::replay_bisection(store, experiment.id, *loaded, why);
  if (!data.bisection) data.notes.push_back("no bisection path: " + why);
  return data;
}

}  // namespace culprit::report
