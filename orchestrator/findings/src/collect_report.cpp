// Gathers what `culprit report` shows, through the same core functions as compare, explain,
// attribute and validate, one step of the page at a time.
#include <spdlog/spdlog.h>

#include <cmath>
#include <future>
#include <map>

#include "culprit/analysis/stored_runs.hpp"
#include "culprit/build_info.hpp"
#include "culprit/errors.hpp"
#include "culprit/findings/report_data.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/storage/run_data.hpp"

namespace culprit::findings {
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

void check_has_runs(const stats::StoredExperiment& experiment) {
  for (const stats::StoredConfiguration& c : experiment.configs) {
    if (!c.medians_ms.empty()) return;
  }
  throw UsageError("experiment '" + experiment.name +
                   "' has no successful run to report on; see `culprit runs`");
}

// compare's judgement, at the settings the experiment ran with.
void judge(storage::Db& store, const stats::StoredExperiment& experiment, ReportData& data) {
  try {
    const stats::Judgement judged = stats::judge_experiment(store, experiment, {});
    data.settings = judged.settings;
    data.compare = judged.comparisons;
  } catch (const UsageError& e) {
    data.compare.experiment = experiment.name;
    data.notes.push_back(std::string("no comparison: ") + e.what());
  }
}

// explain's explanations of every candidate against the baseline, when there is one to explain.
void explain(storage::Db& store, const analysis::StoredExperimentRuns& runs,
             const ReportOptions& options, ReportData& data) {
  const bool baseline_ok = !runs.configs.empty() && runs.configs.front().is_baseline &&
                           !runs.configs.front().ok_runs.empty();
  if (runs.configs.size() > 1 && baseline_ok) {
    data.explain = analysis::explain_stored(store, data.experiment, "", "", options.attribution);
    analysis::add_why(store, data.explain);  // the why block and the attached telemetry
    return;
  }
  data.explain.experiment = data.experiment;
  data.notes.push_back(
      runs.configs.size() > 1
          ? "no explanation: the baseline has no successful run"
          : "no explanation: the experiment has one configuration (nothing to compare with)");
}

analysis::AttributionOptions with_peak(storage::Db& store, analysis::AttributionOptions options,
                                       std::int64_t run) {
  if (options.peak_flops_per_device <= 0)
    options.peak_flops_per_device = analysis::configured_peak_flops(store, run);
  return options;
}

// The run in the pictures: the candidate that moved the median most, else the run of median
// step time of the only configuration with runs.
void choose_focus(storage::Db& store, const analysis::StoredExperimentRuns& runs,
                  const ReportOptions& options, ReportData& data) {
  const std::vector<analysis::Explanation>& explained = data.explain.explanations;
  std::size_t focus = explained.size();
  for (std::size_t i = 0; i < explained.size(); ++i) {
    if (focus == explained.size() ||
        std::abs(explained[i].delta_ms) > std::abs(explained[focus].delta_ms))
      focus = i;
  }
  if (focus < explained.size()) {
    data.focus_config = explained[focus].candidate_label;
    data.focus_why = "the configuration whose median moved most from the baseline";
    data.focus = data.explain.candidate_attributions[focus];
    data.baseline = data.explain.baseline_attribution;
    data.baseline_config = explained[focus].baseline_label;
    return;
  }
  const analysis::StoredConfig* config = nullptr;
  for (const analysis::StoredConfig& c : runs.configs) {
    if (!c.ok_runs.empty() && (!config || c.is_baseline)) config = &c;
  }
  const analysis::StoredRun& middle = config->ok_runs[(config->ok_runs.size() - 1) / 2];
  data.focus_config = config->label;
  data.focus_why = "the run of median step time of the only configuration with runs";
  data.focus = analysis::attribute_run(storage::load_run(store, middle.id),
                                       with_peak(store, options.attribution, middle.id));
}

// The pictures of the focus run are made on their own connection (a reader of the same file)
// while the scorecard is made on this one: on a large run they cost about as much as it.
std::future<analysis::RunFigures> start_figures(storage::Db& store, const ReportOptions& options,
                                                const ReportData& data) {
  const analysis::AttributionOptions attribution =
      with_peak(store, options.attribution, data.focus.run_id);
  return std::async(std::launch::async, [&data, &options, attribution, path = store.path(),
                                         mode = store.reader_mode()] {
    storage::Db reader(path, mode);  // opened as the store was: a read-only store is read here too
    const storage::RunData run = storage::load_run(reader, data.focus.run_id);
    return analysis::run_figures(run, data.focus, attribution, options.figures);
  });
}

// validate's scorecard. The runs explain attributed are scored from those attributions (same
// options): each run is loaded and attributed once per report.
void score(storage::Db& store, const ReportOptions& options, ReportData& data) {
  std::map<std::int64_t, analysis::RunAttribution> attributed;
  if (!data.explain.explanations.empty()) {
    attributed.emplace(data.explain.baseline_attribution.run_id, data.explain.baseline_attribution);
    for (const analysis::RunAttribution& a : data.explain.candidate_attributions)
      attributed.emplace(a.run_id, a);
  }
  analysis::Scorecard card =
      analysis::score_experiment(store, data.experiment, options.attribution, &attributed);
  if (!card.cases.empty()) {
    data.scorecard = std::move(card);
  } else {
    data.notes.push_back("no validate scorecard: no run of this experiment had an injected delay");
  }
}

void replay_bisection(storage::Db& store, const stats::StoredExperiment& experiment,
                      const std::optional<manifest::Manifest>& loaded, ReportData& data) {
  std::string why = "the experiment's manifest is not stored or does not parse";
  if (loaded) data.bisection = bisect::replay_bisection(store, experiment.id, *loaded, why);
  if (!data.bisection) data.notes.push_back("no bisection path: " + why);
}

}  // namespace

ReportData collect_report(storage::Db& store, const ReportOptions& options) {
  ReportData data;
  const stats::StoredExperiment experiment =
      stats::load_stored_experiment(store, options.experiment);
  data.experiment = experiment.name;
  data.generator = std::string("culprit ") + build::kVersion + " (git " + build::kGitHash + ")";
  const std::optional<manifest::Manifest> loaded = stored_manifest(experiment);
  data.settings = stats::stored_judging_settings(store, experiment);
  data.configurations = experiment.configs;
  check_has_runs(experiment);
  judge(store, experiment, data);
  const analysis::StoredExperimentRuns runs =
      analysis::load_experiment_runs(store, experiment.name);
  explain(store, runs, options, data);
  choose_focus(store, runs, options, data);
  std::future<analysis::RunFigures> figures = start_figures(store, options, data);
  score(store, options, data);
  data.figures = figures.get();
  data.telemetry = analysis::stored_telemetry_map(store, data.focus.run_id);
  replay_bisection(store, experiment, loaded, data);
  return data;
}

}  // namespace culprit::findings
