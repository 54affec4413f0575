#include <fmt/format.h>

#include <iostream>

#include "culprit/common/json.hpp"
#include "culprit/report/terminal_text.hpp"
#include "culprit/storage/queries.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct RunsOptions {
  CommonOptions common;
  std::string experiment;
};

void print_json(const std::vector<storage::RunSummary>& runs) {
  Json::Array list;
  for (const auto& r : runs) {
    Json::Object o;
    o["id"] = r.id;
    o["config"] = r.config;
    o["repetition"] = r.repetition;
    o["status"] = r.status;
    o["median_ms"] = r.median_ms ? Json(*r.median_ms) : Json();
    o["started_at"] = r.started_at.empty() ? Json() : Json(r.started_at);
    o["experiment"] = r.experiment;
    o["attempt"] = r.attempt;
    o["error"] = r.error;
    list.emplace_back(std::move(o));
  }
  std::cout << Json(list).dump() << "\n";
}

void print_table(const std::vector<storage::RunSummary>& runs) {
  std::cout << fmt::format("{:>6}  {:<28} {:>4}  {:<11} {:>12}  {:<24} {}\n", "id", "config", "rep",
                           "status", "median_ms", "started_at", "error");
  for (const auto& r : runs) {
    std::cout << fmt::format("{:>6}  {:<28} {:>4}  {:<11} {:>12}  {:<24} {}\n", r.id,
                             report::printable(r.config), r.repetition, r.status,
                             r.median_ms ? fmt::format("{:.3f}", *r.median_ms) : "-",
                             r.started_at.empty() ? "-" : r.started_at, report::printable(r.error));
  }
}

}  // namespace

void register_runs(CLI::App& app, Outcome& outcome) {
  auto* command =
      app.add_subcommand("runs", "List the stored runs with their status and median step time");
  auto o = std::make_shared<RunsOptions>();
  add_json_flag(*command, o->common);
  add_db_option(*command, o->common);
  command->add_option("--experiment", o->experiment, "Only the runs of this experiment (name)");
  command->callback([&outcome, o] {
    auto db = storage::open_existing_store(o->common.db.empty() ? "culprit.db" : o->common.db);
    storage::check_experiment_exists(*db, o->experiment);
    const auto runs = storage::list_runs(*db, o->experiment);
    o->common.json ? print_json(runs) : print_table(runs);
    outcome.exit_code = exit_code::kOk;
  });
}

}  // namespace culprit::cli
