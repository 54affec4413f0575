#pragma once
// Explaining a change of the median step time between two configurations: the decomposition of
// each configuration's median step (taken from its representative run, the one whose median is
// the median of run medians; the two middle ones averaged for an even count, and likewise for
// steps), differenced component by component. Stated to 0.01 ms, the components plus
// unclassified equal the measured difference exactly.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "culprit/analysis/attribution.hpp"
#include "culprit/analysis/stored_runs.hpp"
#include "culprit/analysis/telemetry_view.hpp"
#include "culprit/analysis/why.hpp"

namespace culprit::analysis {

// A configuration's median step: its components (ns) by (category, rank, phase, layer).
struct MedianStep {
  using Key = std::tuple<Category, int, std::string, int>;
  std::string label;
  double median_ms = 0;
  std::map<Key, double> components_ns;
  double unclassified_ns = 0;
  std::vector<std::int64_t> runs;  // the representative run(s)
  RunAttribution attribution;      // of the (first) representative run: culprit, symptom, ratios
};

// Decomposes the median step of a configuration (loads its representative runs from the store).
// Throws culprit::UsageError when the configuration has no successful run.
MedianStep median_step(storage::Db& store, const StoredConfig& config,
                       const AttributionOptions& options);
// The same from attributions already made (one or two runs); `label` names the configuration.
MedianStep median_step(const std::string& label, const std::vector<RunAttribution>& runs);

struct ExplainedComponent {
  Category category = Category::kTypical;
  int rank = -1;
  std::string phase;
  int layer = -1;
  double ms = 0;                  // a multiple of 0.01
  bool first_divergence = false;  // the candidate's culprit
};

struct Explanation {
  std::string baseline_label;
  std::string candidate_label;
  double baseline_median_ms = 0;  // exact
  double candidate_median_ms = 0;
  double delta_ms = 0;                         // candidate - baseline, rounded to 0.01
  std::vector<ExplainedComponent> components;  // non-zero ones, largest |ms| first
  double unclassified_ms = 0;                  // delta - sum(components), exactly, in 0.01 units
  RunCulprit culprit;                          // the candidate's
  Symptom symptom;
  std::vector<std::int64_t> baseline_runs;
  std::vector<std::int64_t> candidate_runs;
  // What a 1 Hz activity dashboard shows for each (first) representative run: high and nearly
  // unchanged even when one rank holds everyone back, so it does not locate the cause.
  SampledActivity baseline_activity;
  SampledActivity candidate_activity;
  // Useful overlap, when the two configurations differ only in model.overlap: step time saved
  // by overlapping, beside the visual overlap of the overlapped configuration.
  std::optional<double> useful_overlap_ms;
  std::optional<Ratio> visual_overlap;
  // Why the blamed phase is slow (add_why): attached counters' verdict and the next capture.
  std::optional<WhyBlock> why;
  // GPU telemetry attached to the representative runs (add_why), over their steady steps: the
  // real dashboard figures beside the sampled-activity model.
  std::optional<RunTelemetry> baseline_telemetry;
  std::optional<RunTelemetry> candidate_telemetry;
};

Explanation explain(const MedianStep& baseline, const MedianStep& candidate);

struct StoredExplanations {
  std::string experiment;
  std::vector<Explanation> explanations;
  std::vector<std::pair<std::string, std::string>> skipped;  // (label, why)
  // The attributions of the (first) representative runs the explanations were made from, for
  // reporters that show more of them (the HTML report): the baseline's, and one per explanation.
  RunAttribution baseline_attribution;
  std::vector<RunAttribution> candidate_attributions;
};

// `culprit explain`: BASELINE against CANDIDATE, or (empty labels) the experiment's baseline
// against every other configuration with successful runs. Throws culprit::UsageError for an
// unknown label (naming the known ones) or a named configuration without successful runs.
StoredExplanations explain_stored(storage::Db& store, const std::string& experiment,
                                  const std::string& baseline_label,
                                  const std::string& candidate_label,
                                  const AttributionOptions& options);

// Fills each explanation's `why` from the evidence attached to its representative runs
// (storage/evidence.hpp) and the next capture for its culprit.
void add_why(storage::Db& store, StoredExplanations& result);

}  // namespace culprit::analysis
