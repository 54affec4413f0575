// `culprit reduce`: from a baseline and a candidate run (measured, simulated or imported) to a
// small controlled experiment that injects the blamed causes into a calibrated model of the job.
#include <string>

#include "culprit/manifest/write.hpp"
#include "culprit/reduce/reduce.hpp"
#include "culprit/report/reduce_report.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct ReduceArgs {
  CommonOptions common;
  std::int64_t baseline_run = 0;
  std::int64_t candidate_run = 0;
  reduce::ReduceOptions options;
  std::string output;
};

void reduce(const ReduceArgs& args) {
  const std::string db = store_path(args.common);
  auto store = storage::open_existing_store(db);
  reduce::ReduceOptions options = args.options;
  options.source_db = db;
  options.path = args.output;
  const reduce::ReducedExperiment reduced =
      reduce::reduce_pair(*store, args.baseline_run, args.candidate_run, options);
  write_file(args.output,
             manifest::write_manifest(reduced.reduced.manifest, reduced.reduced.layout));
  print(report::reduce_summary_document(reduced.reduction, args.output, args.common.format()));
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
      ->add_option("--ranks", args->options.reduction.ranks,
                   "Ranks of the reduced experiment (default: the runs' own count)")
      ->check(CLI::Range(1, 1 << 24).description("a rank count of at least 1"));
  command
      ->add_option("--backend", args->options.reduction.backend,
                   "sim (simulated ranks) or cpu (real mpirun "
                   "ranks that sleep the measured durations)")
      ->check(CLI::IsMember({"sim", "cpu"}));
  command
      ->add_option("--repetitions", args->options.repetitions,
                   "Runs per configuration (default: enough for the control to decide equivalence "
                   "against the model's simulated run-to-run noise, 8 to 60)")
      ->check(CLI::Range(1, 1000));
  command->add_option("--name", args->options.name, "Experiment name (default reduce-BASE-CAND)");
  command->add_option("-o,--output", args->output, "The manifest to write, e.g. repro.toml")
      ->required();
}

}  // namespace culprit::cli
