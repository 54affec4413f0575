#include "culprit/report/store_listings.hpp"
#include "culprit/storage/queries.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct RunsOptions {
  CommonOptions common;
  std::string experiment;
};

}  // namespace

void register_runs(CLI::App& app, Outcome& outcome) {
  const auto [command, o] = add_store_command<RunsOptions>(
      app, "runs", "List the stored runs with their status and median step time");
  command->add_option("--experiment", o->experiment, "Only the runs of this experiment (name)");
  command->callback([&outcome, o = o] {
    auto db = open_existing(o->common);
    storage::check_experiment_exists(*db, o->experiment);
    const auto runs = storage::list_runs(*db, o->experiment);
    print(report::runs_document(runs, o->common.format()));
    outcome.exit_code = exit_code::kOk;
  });
}

}  // namespace culprit::cli
