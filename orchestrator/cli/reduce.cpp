// `culprit reduce`: from a baseline and a candidate run (measured, simulated or imported) to a
// small controlled experiment that injects the blamed causes into a calibrated model of the job.
#include <algorithm>
#include <string>

#include "culprit/analysis/model_level.hpp"
#include "culprit/analysis/reduction.hpp"
#include "culprit/analysis/stored_runs.hpp"
#include "culprit/errors.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/manifest/planner.hpp"
#include "culprit/report/reduce_report.hpp"
#include "culprit/stats/compare.hpp"
#include "culprit/storage/run_data.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

constexpr int kLevelDraws = 15;   // simulated runs behind the model's level
constexpr double kMargin = 0.02;  // the reduced manifest's stats.margin
constexpr int kFitDraws = 100;    // simulated runs behind a fitted hiccup delay

struct ReduceArgs {
  CommonOptions common;
  std::int64_t baseline_run = 0;
  std::int64_t candidate_run = 0;
  int ranks = 0;
  std::string backend = "sim";
  std::string output;
  std::string name;
  int repetitions = 0;  // 0: enough for the control to decide (repetitions_for)
};

void reduce(const ReduceArgs& args) {
  const std::string db = store_path(args.common);
  auto store = storage::open_existing_store(db);
  analysis::check_reducible_pair(*store, args.baseline_run, args.candidate_run);
  storage::RunData baseline, candidate;
  try {
    baseline = storage::load_run(*store, args.baseline_run);
    candidate = storage::load_run(*store, args.candidate_run);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const std::vector<double> siblings = analysis::sibling_run_medians(*store, args.baseline_run);
  const std::vector<double> candidates = analysis::sibling_run_medians(*store, args.candidate_run);
  analysis::ReductionOptions options;
  options.ranks = args.ranks;
  options.backend = args.backend;
  analysis::Reduction reduction = analysis::reduce_runs(baseline, candidate, options, siblings);

  report::ReducedManifestOptions text_options;
  text_options.name = !args.name.empty() ? args.name
                                         : "reduce-" + std::to_string(args.baseline_run) + "-" +
                                               std::to_string(args.candidate_run);
  text_options.source_db = db;
  text_options.backend = args.backend;
  text_options.repetitions = args.repetitions > 0 ? args.repetitions : 8;
  if (siblings.size() >= 2 && candidates.size() >= 2) {
    text_options.configuration_shift_ms = stats::compare(siblings, candidates).shift;
    text_options.baseline_config_runs = static_cast<int>(siblings.size());
    text_options.candidate_config_runs = static_cast<int>(candidates.size());
  }
  // The model's level: its baseline simulated at the job's own rank count, scaled onto the
  // measured median (analysis/model_level.hpp), then written again.
  {
    const manifest::Plan draft = manifest::make_plan(
        manifest::parse_manifest(report::reduced_manifest(reduction, text_options), args.output));
    stepmodel::RunConfig model = draft.configs.front().run;
    model.ranks = reduction.baseline.ranks;
    const analysis::ModelLevel level = analysis::simulated_level(model, kLevelDraws);
    analysis::set_model_level(reduction, level.median_ms);
    stepmodel::RunConfig scaled =
        manifest::make_plan(manifest::parse_manifest(
                                report::reduced_manifest(reduction, text_options), args.output))
            .configs.front()
            .run;
    // At the reduced experiment's rank count: fewer ranks leave a delayed rank less slack.
    scaled.ranks = reduction.ranks;
    analysis::fit_capped_hiccups(reduction, scaled, kFitDraws);
    // Enough runs that the control decides `equivalent` against the model's own noise, at the
    // reduced experiment's rank count.
    if (args.repetitions == 0) {
      model.ranks = reduction.ranks;
      const analysis::ModelLevel at_ranks = reduction.ranks == reduction.baseline.ranks
                                                ? level
                                                : analysis::simulated_level(model, kLevelDraws);
      text_options.repetitions =
          std::max(analysis::repetitions_for(at_ranks.run_cv, kMargin),
                   analysis::repetitions_for_excess(at_ranks.step_sigma_ms * reduction.model_scale,
                                                    static_cast<int>(reduction.excess_steps.size()),
                                                    reduction.step_excess_ms));
    }
  }
  const std::string text = report::reduced_manifest(reduction, text_options);
  // The manifest must be one `culprit run` accepts: check it with the same parser and planner.
  (void)manifest::make_plan(manifest::parse_manifest(text, args.output));
  write_file(args.output, text);
  // report/reduce_report.cpp (moving to orchestrator/reduce/ on another branch) has no
  // reduce_summary_document yet: the one renderer of the format asked for is picked here, and
  // reduce_summary_json ends in its own newline.
  print(args.common.json
            ? report::reduce_summary_json(reduction, args.output)
            : report::text_document(report::reduce_summary_text(reduction, args.output)));
}

}  // namespace

void register_reduce(CLI::App& app, Outcome& outcome) {
  const auto [command, args] = add_store_command<ReduceArgs>(
      app, outcome, reduce, "reduce",
      "Write a small controlled experiment (a manifest) that reproduces a regression: a model "
      "calibrated on BASELINE_RUN with the causes blamed in CANDIDATE_RUN injected");
  command
      ->add_option("BASELINE_RUN", args->baseline_run,
                   "Run id of the baseline (see `culprit runs`)")
      ->required();
  command->add_option("CANDIDATE_RUN", args->candidate_run, "Run id of the slow run")->required();
  command
      ->add_option("--ranks", args->ranks,
                   "Ranks of the reduced experiment (default: the runs' own count)")
      ->check(CLI::Range(1, 1 << 24).description("a rank count of at least 1"));
  command
      ->add_option("--backend", args->backend,
                   "sim (simulated ranks) or cpu (real mpirun "
                   "ranks that sleep the measured durations)")
      ->check(CLI::IsMember({"sim", "cpu"}));
  command
      ->add_option("--repetitions", args->repetitions,
                   "Runs per configuration (default: enough for the control to decide equivalence "
                   "against the model's simulated run-to-run noise, 8 to 60)")
      ->check(CLI::Range(1, 1000));
  command->add_option("--name", args->name, "Experiment name (default reduce-BASE-CAND)");
  command->add_option("-o,--output", args->output, "The manifest to write, e.g. repro.toml")
      ->required();
}

}  // namespace culprit::cli
