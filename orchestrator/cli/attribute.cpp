// `culprit attribute`: blind attribution of one run (from the store or straight from a run
// file): per step the last arriver, the first unexplained divergence and the decomposition;
// per run the culprit, its symptom, delay costs, what-if and efficiency ratios.
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>

#include "culprit/analysis/attribution.hpp"
#include "culprit/analysis/stored_runs.hpp"
#include "culprit/errors.hpp"
#include "culprit/report/attribution_report.hpp"
#include "culprit/storage/queries.hpp"
#include "culprit/storage/run_data.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct AttributeArgs {
  CommonOptions common;
  std::optional<std::int64_t> run_id;
  std::string run_file;
  double peak_flops = 0;
};

void attribute(const AttributeArgs& args) {
  if (args.run_id.has_value() == !args.run_file.empty()) {
    throw UsageError(
        "attribute needs one run: a RUN id from the store (see `culprit runs`) or "
        "--run-file PATH");
  }
  if (!(std::isfinite(args.peak_flops) && args.peak_flops >= 0)) {
    throw UsageError(
        fmt::format("--peak-flops must be a finite FLOP/s >= 0 (0: the configuration's), not {}",
                    args.peak_flops));
  }
  analysis::AttributionOptions options;
  options.peak_flops_per_device = args.peak_flops;
  storage::RunData run;
  try {
    if (!args.run_file.empty()) {
      run = storage::load_run_file(args.run_file);
    } else {
      auto store = open_existing(args.common);
      run = storage::load_run(*store, *args.run_id);
      if (run.events.empty()) {
        const std::string id = std::to_string(*args.run_id);
        const auto found = storage::find_run(*store, *args.run_id);
        const std::string state =
            found ? found->status + (found->error.empty() ? "" : ": " + found->error) : "?";
        throw UsageError("run " + id + " in " + store->path() + " has no events to attribute (" +
                         state + "): attribute an ok run (see `culprit runs`)");
      }
      if (options.peak_flops_per_device <= 0)
        options.peak_flops_per_device = analysis::configured_peak_flops(*store, *args.run_id);
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const analysis::RunAttribution result = analysis::attribute_run(run, options);
  print(report::attribution_document(result, args.common.format()));
}

}  // namespace

void register_attribute(CLI::App& app, Outcome& outcome) {
  const auto [command, args] = add_store_command<AttributeArgs>(
      app, outcome, attribute, "attribute",
      "Attribute each step of one run: last arriver, first divergence, delay costs");
  command->add_option("RUN", args->run_id, "Run id in the store (see `culprit runs`)");
  command->add_option("--run-file", args->run_file, "Attribute a run file directly (no store)")
      ->check(CLI::ExistingFile);
  command->add_option("--peak-flops", args->peak_flops,
                      "Peak FLOP/s per device for MFU (default: the configuration's "
                      "model.peak_flops)");
}

}  // namespace culprit::cli
