#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "culprit/errors.hpp"
#include "culprit/manifest/json.hpp"
#include "culprit/storage/queries.hpp"
#include "culprit/storage/store.hpp"

namespace culprit::cli {
namespace {

struct ExportOptions {
  CommonOptions common;
  std::string format = "csv";
  std::string experiment;
};

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

void print_csv(const std::vector<storage::StepExport>& rows) {
  std::cout << "run_id,experiment,config,repetition,step,time_ms,last_rank,warmup\n";
  for (const auto& r : rows) {
    std::cout << fmt::format("{},{},{},{},{},{},{},{}\n", r.run_id, csv_field(r.experiment),
                             csv_field(r.config), r.repetition, r.step,
                             manifest::format_number(r.time_ms), r.last_rank, r.warmup ? 1 : 0);
  }
}

void print_json(const std::vector<storage::StepExport>& rows) {
  manifest::Json::Array list;
  for (const auto& r : rows) {
    manifest::Json::Object o;
    o["run_id"] = r.run_id;
    o["experiment"] = r.experiment;
    o["config"] = r.config;
    o["repetition"] = r.repetition;
    o["step"] = r.step;
    o["time_ms"] = r.time_ms;
    o["last_rank"] = r.last_rank;
    o["warmup"] = r.warmup;
    list.emplace_back(std::move(o));
  }
  std::cout << manifest::Json(list).dump() << "\n";
}

}  // namespace

void register_export(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand(
      "export", "Export per-step data (run, configuration, repetition, step, time) as CSV or JSON");
  auto o = std::make_shared<ExportOptions>();
  add_json_flag(*command, o->common);
  add_db_option(*command, o->common);
  command->add_option("--format", o->format, "csv (default) or json")
      ->check(CLI::IsMember({"csv", "json"}));
  command->add_option("--experiment", o->experiment, "Only the steps of this experiment (name)");
  command->callback([&outcome, o, command] {
    if (o->common.json && command->count("--format") > 0 && o->format != "json") {
      throw UsageError("--json and --format " + o->format +
                       " ask for two formats: pass one of them (--json is --format json)");
    }
    auto db = storage::open_existing_store(o->common.db.empty() ? "culprit.db" : o->common.db);
    storage::check_experiment_exists(*db, o->experiment);
    const auto rows = storage::export_steps(*db, o->experiment);
    (o->common.json || o->format == "json") ? print_json(rows) : print_csv(rows);
    outcome.exit_code = exit_code::kOk;
  });
}

}  // namespace culprit::cli
