// `culprit compare`: the baseline against every other configuration of an experiment (or one
// named pair): medians with CIs, Hodges–Lehmann shift with CI, p-value, verdict.
#include <optional>
#include <string>

#include "culprit/errors.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/report/compare_report.hpp"
#include "culprit/stats/judge.hpp"
#include "culprit/stats/stored.hpp"
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

void run_compare(const CompareArgs& args) {
  std::optional<manifest::Manifest> loaded;
  if (!args.manifest.empty()) loaded = manifest::load_manifest(args.manifest);

  auto store =
      storage::open_existing_store(store_path(args.common, loaded ? loaded->settings.db : ""));

  const std::string experiment_name =
      !args.experiment.empty() ? args.experiment : (loaded ? loaded->settings.name : "");
  const stats::StoredExperiment experiment = stats::load_stored_experiment(*store, experiment_name);
  const stats::Judgement judged = stats::judge_experiment(
      *store, experiment, {args.baseline, args.candidate, args.alpha, args.margin});

  const bool one_pair = !args.candidate.empty();
  print(report::compare_document(judged, one_pair, args.common.format()));
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
      ->add_option(
          "--alpha", args->alpha,
          "Overall two-sided alpha (default: stats.alpha as the experiment ran, else 0.05)")
      ->check(CLI::Range(1e-9, 0.5));
  command
      ->add_option(
          "--margin", args->margin,
          "Practical margin on the relative shift (default: stats.margin as it ran, else 0.02)")
      ->check(CLI::Range(0.0, 10.0));
}

}  // namespace culprit::cli
