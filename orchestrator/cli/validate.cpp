// `culprit validate MANIFEST`: runs (or reuses) an injected-straggler sweep with its
// no-injection controls, attributes every run blind, and scores the answers against the truth.
#include <spdlog/spdlog.h>

#include <optional>
#include <string>

#include "culprit/analysis/attribution_score.hpp"
#include "culprit/errors.hpp"
#include "culprit/launch/execute.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/manifest/planner.hpp"
#include "culprit/report/validate_report.hpp"
#include "culprit/stats/judge.hpp"
#include "culprit/stats/stored.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct ValidateArgs {
  CommonOptions common;
  std::string manifest;
};

int validate(const ValidateArgs& args) {
  const manifest::Plan plan = manifest::make_plan(manifest::load_manifest(args.manifest));
  auto store = storage::open_store(store_path(args.common, plan.settings.db));
  launch::ExecuteOptions options;
  options.launch = launch::detect_launch_environment(plan.settings.launch);
  const launch::ExecuteResult executed = launch::execute_plan(*store, plan, options);
  spdlog::info("{} planned run(s): {} run now, {} reused, {} not ok", executed.planned,
               executed.runs.size(), executed.already_ok, executed.not_ok);
  const analysis::Scorecard card = analysis::score_experiment(*store, plan.settings.name, {});
  // Judged as compare, explain and report judge it: the verdicts of the uninjected changes.
  std::optional<stats::Judgement> judged;
  try {
    judged =
        stats::judge_experiment(*store, stats::load_stored_experiment(*store, card.experiment), {});
  } catch (const UsageError& e) {
    spdlog::warn("no verdict: {}", e.what());
  }
  const stats::Judgement* verdicts = judged ? &*judged : nullptr;
  print(report::validate_document(card, verdicts, args.common.format()));
  return executed.all_ok() ? exit_code::kOk : exit_code::kRunFailed;
}

}  // namespace

void register_validate(CLI::App& app, Outcome& outcome) {
  const auto [command, args] = add_store_command<ValidateArgs>(
      app, "validate", "Score blind attribution against injected stragglers");
  command
      ->add_option("MANIFEST", args->manifest,
                   "Manifest of an injected-straggler sweep (the baseline runs are the "
                   "no-injection controls)")
      ->required();
  command->callback([&outcome, args = args] { outcome.exit_code = validate(*args); });
}

}  // namespace culprit::cli
