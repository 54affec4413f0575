// `culprit import`: profiler traces (one file per rank, or folders of them) -> one stored run.
#include <string>
#include <vector>

#include "culprit/errors.hpp"
#include "culprit/launch/import_run.hpp"
#include "culprit/report/import_report.hpp"
#include "import_evidence.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct ImportArgs {
  CommonOptions common;
  std::vector<std::string> paths;
  std::string format = "auto";
  std::string experiment = "import";
  std::string label = "imported";
  int warmup = 0;
  bool partial = false;
  std::string step_pattern;
  std::string rank_by = "auto";
  EvidenceArgs evidence;  // --attach and its options (import_evidence.hpp)
};

void run_import(const ImportArgs& args) {
  if (is_evidence_format(args.format) || !args.evidence.attach.empty()) {
    return import_evidence(args.common, args.paths, args.format, args.evidence);
  }
  if (args.warmup < 0) throw UsageError("--warmup must be 0 or more");
  importers::ImportOptions options;
  options.format = importers::parse_format(args.format);
  options.experiment = args.experiment;
  options.label = args.label;
  options.warmup_steps = args.warmup;
  options.partial = args.partial;
  options.rank_by = importers::parse_rank_by(args.rank_by);
  if (!args.step_pattern.empty()) options.steps.pattern = args.step_pattern;
  const std::string db = store_path(args.common);
  std::vector<std::string> argv = {"culprit", "import"};
  argv.insert(argv.end(), args.paths.begin(), args.paths.end());
  const launch::ImportOutcome outcome = launch::import_into_store(db, args.paths, options, argv);
  report::ImportReport r;
  r.run_id = outcome.stored.run_id;
  r.experiment = args.experiment;
  r.label = args.label;
  r.baseline = outcome.stored.baseline;
  r.repetition = outcome.stored.repetition;
  r.median_ms = outcome.stored.median_ms.value_or(0.0);
  r.summary = outcome.summary;
  print(report::import_document(r, args.common.format()));
  if (!outcome.stored.error.empty()) {
    throw RunError("run " + std::to_string(r.run_id) +
                   " was stored as failed: " + outcome.stored.error);
  }
}

}  // namespace

void register_import(CLI::App& app, Outcome& outcome) {
  const auto [command, args] = add_store_command<ImportArgs>(
      app, outcome, run_import, "import",
      "Import profiler traces (Kineto, legacy chrome trace, Nsight Systems) as one run");
  command->add_option("PATH", args->paths, "One trace file per rank, or folders of them")
      ->required();
  command->add_option("--format", args->format,
                      "auto|kineto|legacy|nsys (default auto); ncu|dcgm|nvidia-smi|nvml-csv "
                      "with --attach");
  add_evidence_options(*command, args->evidence);
  command->add_option("--experiment", args->experiment,
                      "Experiment to store the run under (default 'import')");
  command->add_option("--label", args->label,
                      "Configuration label, e.g. baseline or candidate (default 'imported')");
  command->add_option("--warmup", args->warmup,
                      "Recorded steps to treat as warm-up (default 0: the profiler's schedule "
                      "already left its warm-up out)");
  command->add_flag("--partial", args->partial,
                    "Accept a subset of the job's ranks (the run is flagged partial)");
  command->add_option("--step-pattern", args->step_pattern,
                      "Regex of the labels that are steps (default ^ProfilerStep#(\\d+)$)");
  command->add_option("--rank-by", args->rank_by,
                      "Ranks inside one file (an Nsight Systems export, a Kineto trace): "
                      "process|device (default: a process each, a device each where one process "
                      "drives several GPUs)");
}

}  // namespace culprit::cli
