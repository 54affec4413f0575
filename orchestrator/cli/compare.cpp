// `culprit compare`: the baseline against every other configuration of an experiment (or one
// named pair): medians with CIs, Hodges–Lehmann shift with CI, p-value, verdict.
#include <spdlog/spdlog.h>

#include <iostream>
#include <optional>
#include <string>

#include "culprit/errors.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/report/compare_report.hpp"
#include "culprit/stats/stored.hpp"
#include "culprit/stats/stored_looks.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct CompareArgs {
  CommonOptions common;
  std::string manifest;
  std::string experiment;
  std::string baseline;
  std::string candidate;
  std::optional<double> alpha;
  std::optional<double> margin;
};

// Overall alpha, margin and the looks of adaptive sampling, as the experiment ran.
struct StatsSettings {
  double alpha = 0.05;
  double margin = 0.02;
  int looks = 1;
  std::string source = "defaults";
  int repetitions = 5;
  int max_repetitions = 5;
};

StatsSettings settings_from(const manifest::ExperimentSettings& s, const std::string& source) {
  return {s.alpha, s.margin, 1, source, s.repetitions, s.max_repetitions};
}

void run_compare(const CompareArgs& args) {
  std::optional<manifest::Manifest> loaded;
  if (!args.manifest.empty()) loaded = manifest::load_manifest(args.manifest);

  auto store =
      storage::open_existing_store(store_path(args.common, loaded ? loaded->settings.db : ""));

  const std::string experiment_name =
      !args.experiment.empty() ? args.experiment : (loaded ? loaded->settings.name : "");
  const stats::StoredExperiment experiment = stats::load_stored_experiment(*store, experiment_name);

  StatsSettings settings;
  if (loaded) {
    settings = settings_from(loaded->settings, "from " + args.manifest);
  } else if (!experiment.manifest_text.empty()) {
    try {
      settings = settings_from(
          manifest::parse_manifest(experiment.manifest_text, experiment.manifest_path).settings,
          "from the stored manifest");
    } catch (const std::exception& e) {
      spdlog::warn(
          "the stored manifest of '{}' does not parse ({}); using alpha 0.05, margin "
          "0.02",
          experiment.name, e.what());
    }
  }
  if (args.alpha) settings.alpha = *args.alpha;
  if (args.margin) settings.margin = *args.margin;
  const stats::LookAlpha look = stats::alpha_per_look(experiment, settings.repetitions,
                                                      settings.max_repetitions, settings.alpha);
  settings.looks = look.looks;

  stats::ComparisonRequest request;
  request.baseline_label = args.baseline;
  request.candidate_label = args.candidate;
  request.options.alpha = look.alpha;
  request.options.margin = settings.margin;
  const stats::StoredComparisons result = stats::compare_stored(experiment, request);

  const report::CompareSettings shown{settings.alpha, settings.looks, request.options.alpha,
                                      settings.margin, settings.source};
  const bool single_pair = !args.candidate.empty();
  if (args.common.json && single_pair) {
    std::cout << report::compare_pair_json(result.experiment, result.comparisons.front()) << "\n";
  } else {
    print(args.common, report::compare_json(result) + "\n", report::compare_text(result, shown));
  }
}

}  // namespace

void register_compare(CLI::App& app, Outcome& outcome) {
  const auto [command, args] = add_store_command<CompareArgs>(
      app, outcome, run_compare, "compare",
      "Compare median step time of configurations: shift, CI, p-value, verdict");
  command->add_option("manifest", args->manifest,
                      "Manifest of the experiment (its name, experiment.db and [stats])");
  command->add_option("--experiment", args->experiment,
                      "Experiment name in the store (default: the manifest's, else the latest)");
  command->add_option("--baseline", args->baseline,
                      "Configuration label to compare against (default: the baseline)");
  command->add_option("--candidate", args->candidate,
                      "Compare only this configuration (default: every other one)");
  command
      ->add_option("--alpha", args->alpha,
                   "Overall two-sided alpha (default: the manifest's stats.alpha, 0.05)")
      ->check(CLI::Range(1e-9, 0.5));
  command
      ->add_option("--margin", args->margin,
                   "Practical margin on the relative shift (default: stats.margin, 0.02)")
      ->check(CLI::Range(0.0, 10.0));
}

}  // namespace culprit::cli
