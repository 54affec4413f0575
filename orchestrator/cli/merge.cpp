#include <spdlog/spdlog.h>

#include "culprit/report/store_listings.hpp"
#include "culprit/storage/merge.hpp"
#include "culprit/storage/queries.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct MergeOptions {
  CommonOptions common;
  std::string output;
  std::vector<std::string> inputs;
};

}  // namespace

void register_merge(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand(
      "merge", "Merge shard databases into OUT (created when missing); merging again is a no-op");
  auto o = std::make_shared<MergeOptions>();
  command->add_option("OUT", o->output, "The merged database")->required();
  command->add_option("IN", o->inputs, "Shard databases written by `culprit run --shard`")
      ->required();
  add_json_flag(*command, o->common);
  command->callback([&outcome, o] {
    storage::check_merge_inputs(o->output, o->inputs);
    auto db = storage::open_store(o->output);
    std::vector<report::MergedInput> merged;
    for (const auto& input : o->inputs) {
      const auto s = storage::merge_store(*db, input);
      spdlog::info("{}: {} run(s) added, {} replaced, {} kept as they were", input, s.runs_added,
                   s.runs_replaced, s.runs_kept);
      merged.push_back({input, s});
    }
    print(report::merge_document(o->output, merged, storage::count_runs(*db), o->common.format()));
    outcome.exit_code = exit_code::kOk;
  });
}

}  // namespace culprit::cli
