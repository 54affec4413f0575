#include <spdlog/spdlog.h>

#include <iostream>

#include "command.hpp"
#include "culprit/manifest/json.hpp"
#include "culprit/storage/merge.hpp"
#include "culprit/storage/queries.hpp"
#include "culprit/storage/store.hpp"

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
    manifest::Json::Array reports;
    for (const auto& input : o->inputs) {
      const auto s = storage::merge_store(*db, input);
      spdlog::info("{}: {} run(s) added, {} replaced, {} kept as they were", input, s.runs_added,
                   s.runs_replaced, s.runs_kept);
      manifest::Json::Object r;
      r["input"] = input;
      r["experiments_added"] = s.experiments_added;
      r["configurations_added"] = s.configurations_added;
      r["runs_added"] = s.runs_added;
      r["runs_replaced"] = s.runs_replaced;
      r["runs_kept"] = s.runs_kept;
      reports.emplace_back(std::move(r));
    }
    if (o->common.json) {
      manifest::Json::Object doc;
      doc["output"] = o->output;
      doc["inputs"] = reports;
      std::cout << manifest::Json(doc).dump() << "\n";
    } else {
      const auto total = storage::count_runs(*db);
      std::cout << fmt::format("merged {} database(s) into {}: {} run(s) stored\n",
                               o->inputs.size(), o->output, total);
    }
    outcome.exit_code = exit_code::kOk;
  });
}

}  // namespace culprit::cli
