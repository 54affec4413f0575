// `culprit explain`: a change of median step time decomposed into components by category and
// culprit (rank, phase, layer) plus unclassified, reconciled to 0.01 ms.
#include <spdlog/spdlog.h>

#include <optional>
#include <string>

#include "culprit/analysis/explain.hpp"
#include "culprit/errors.hpp"
#include "culprit/reduce/reduction.hpp"
#include "culprit/reduce/step_excess.hpp"
#include "culprit/report/explain_report.hpp"
#include "culprit/report/reduce_report.hpp"
#include "culprit/stats/judge.hpp"
#include "culprit/stats/stored.hpp"
#include "culprit/storage/experiment_settings.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct ExplainArgs {
  CommonOptions common;
  std::string experiment;
  std::string baseline;
  std::string candidate;
};

// A reduced experiment (`culprit reduce`) knows the change it was made to reproduce, as stored
// with its settings.
void print_reproduction(storage::Db& store, const analysis::StoredExplanations& result,
                        std::int64_t experiment_id) {
  const auto settings = storage::experiment_settings(store, experiment_id);
  if (settings && settings->reduced_from_lost) {
    spdlog::warn(
        "experiment '{}' is a reduced one stored before schema 7, which keeps [reduced_from]: run "
        "its manifest again with `culprit run` (it resumes, nothing is rerun) to see how much "
        "each cause reproduces",
        result.experiment);
  }
  if (!settings || !settings->reduced_from) return;
  const storage::ReducedFromRecord& from = *settings->reduced_from;
  print(report::text_document(
      report::reproduction_text(reduce::reproduction(result, from.target_ms()), from.target_ms())));
  if (from.step_excess_ms && !from.excess_steps.empty()) {
    print(report::text_document(
        report::step_excess_text(reduce::step_excess(store, result.experiment, from.excess_steps),
                                 from.excess_steps, *from.step_excess_ms)));
  }
}

void explain(const ExplainArgs& args) {
  if (!args.baseline.empty() && args.candidate.empty()) {
    throw UsageError(
        "explain takes no configuration (baseline vs every other one) or two: "
        "BASELINE CANDIDATE");
  }
  auto store = open_existing(args.common);
  analysis::StoredExplanations result =
      analysis::explain_stored(*store, args.experiment, args.baseline, args.candidate, {});
  analysis::add_why(*store, result);
  const stats::StoredExperiment experiment =
      stats::load_stored_experiment(*store, result.experiment);
  // Judged as compare and report judge it; a pair without runs enough is judged where it can be.
  std::optional<stats::Judgement> judged;
  try {
    judged = stats::judge_experiment(*store, experiment, {args.baseline, args.candidate, {}, {}});
  } catch (const UsageError& e) {
    spdlog::warn("no verdict: {}", e.what());
  }
  const stats::Judgement* verdicts = judged ? &*judged : nullptr;
  print(report::explain_document(result, verdicts, args.common.format()));
  if (!args.common.json) print_reproduction(*store, result, experiment.id);
}

}  // namespace

void register_explain(CLI::App& app, Outcome& outcome) {
  const auto [command, args] = add_store_command<ExplainArgs>(
      app, outcome, explain, "explain",
      "Explain a median step-time change: components by rank and phase + unclassified");
  add_latest_experiment_option(*command, args->experiment);
  command->add_option("BASELINE", args->baseline, "Baseline configuration label");
  command->add_option("CANDIDATE", args->candidate, "Candidate configuration label");
}

}  // namespace culprit::cli
