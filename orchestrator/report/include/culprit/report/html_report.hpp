#pragma once
// `culprit report`: one self-contained HTML file (no network at view time; the charting library,
// d3 from Debian's libjs-d3, is inlined at build time) with the pictures and the numbers of an
// experiment. The results are those of compare, explain, attribute and validate (the same
// analysis functions); report_json() is the data document the page embeds and draws from.

#include <optional>
#include <string>
#include <vector>

#include "culprit/analysis/attribution_score.hpp"
#include "culprit/analysis/explain.hpp"
#include "culprit/analysis/figures.hpp"
#include "culprit/analysis/telemetry_view.hpp"
#include "culprit/bisect/replay.hpp"
#include "culprit/report/compare_report.hpp"
#include "culprit/stats/stored.hpp"
#include "culprit/storage/db.hpp"

namespace culprit::report {

struct ReportOptions {
  std::string experiment;  // empty: the most recent one in the store
  analysis::AttributionOptions attribution;
  analysis::FigureOptions figures;
};

struct ReportData {
  std::string experiment;
  CompareSettings settings;
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

std::string report_json(const ReportData& data);
std::string report_html(const ReportData& data);

// What `culprit report` prints once the page of `experiment` is written to `output`.
std::string report_written_json(const std::string& experiment, const std::string& output,
                                std::size_t bytes);
std::string report_written_text(const std::string& output);

}  // namespace culprit::report
