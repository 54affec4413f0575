#pragma once
// What `culprit report` presents about one experiment, collected from the store through the
// same core functions as compare, explain, attribute and validate (stats::judge_experiment,
// analysis::explain_stored, analysis::score_experiment) plus the bisection path and the figures
// of one run. report/ renders it (report::report_json, report::report_html) and collects nothing.

#include <optional>
#include <string>
#include <vector>

#include "culprit/analysis/attribution_score.hpp"
#include "culprit/analysis/explain.hpp"
#include "culprit/analysis/figures.hpp"
#include "culprit/analysis/telemetry_view.hpp"
#include "culprit/bisect/replay.hpp"
#include "culprit/stats/judge.hpp"
#include "culprit/stats/stored.hpp"
#include "culprit/storage/db.hpp"

namespace culprit::findings {

struct ReportOptions {
  std::string experiment;  // empty: the most recent one in the store
  analysis::AttributionOptions attribution;
  analysis::FigureOptions figures;
};

struct ReportData {
  std::string experiment;
  std::string generator;  // "culprit VERSION (git HASH)": the build that collected it
  stats::JudgingSettings settings;
  std::vector<stats::StoredConfiguration> configurations;  // the baseline first
  stats::StoredComparisons compare;
  analysis::StoredExplanations explain;          // empty when the experiment has one configuration
  std::optional<analysis::Scorecard> scorecard;  // when some run had an injected delay
  std::optional<bisect::Replay> bisection;       // when the manifest has a [bisect] section
  // The run the heat maps and the timeline show: the representative run of the configuration
  // that moved the median most (else the baseline's), with its configuration and attribution.
  std::string focus_config;
  std::string focus_why;
  analysis::RunAttribution focus;
  std::optional<analysis::RunAttribution> baseline;  // for the efficiency ratios beside it
  std::string baseline_config;
  analysis::RunFigures figures;
  // GPU telemetry attached to the focus run, per rank and step (beside the heat maps).
  std::optional<analysis::TelemetryMap> telemetry;
  std::vector<std::string> notes;  // what the report could not show, and why
};

// Loads and analyses everything the report shows. Throws culprit::UsageError when the store
// has no such experiment or the experiment has no successful run.
ReportData collect_report(storage::Db& store, const ReportOptions& options);

}  // namespace culprit::findings
