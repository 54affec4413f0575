#include "culprit/report/store_listings.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <string>

#include "culprit/common/json.hpp"
#include "culprit/report/json_writer.hpp"
#include "culprit/report/terminal_text.hpp"

namespace culprit::report {

namespace {

std::string runs_json(const std::vector<storage::RunSummary>& runs) {
  JsonWriter json;
  json.array_of(runs, [](JsonWriter& w, const storage::RunSummary& r) {
    w.begin_object()
        .field("id", r.id)
        .field("config", r.config)
        .field("repetition", r.repetition)
        .field("status", r.status)
        .field_or_null("median_ms", r.median_ms)
        .field_or_null("started_at", r.started_at)
        .field("experiment", r.experiment)
        .field("attempt", r.attempt)
        .field("error", r.error)
        .end_object();
  });
  return json.str();
}

std::string runs_text(const std::vector<storage::RunSummary>& runs) {
  // The experiment is a column: an imported run's (culprit import --experiment) is not the
  // sweep's beside it.
  const std::size_t experiment_width =
      column_width(20, runs, [](const storage::RunSummary& r) { return printable(r.experiment); });
  const std::size_t config_width =
      column_width(28, runs, [](const storage::RunSummary& r) { return printable(r.config); });
  constexpr const char* kRow = "{:>6}  {:<{}} {:<{}} {:>4}  {:<11} {:>12}  {:<24} {}";
  std::string out = fmt::format(kRow, "id", "experiment", experiment_width, "config", config_width,
                                "rep", "status", "median_ms", "started_at", "error");
  out += "\n";
  for (const auto& r : runs) {
    // An ok run has no error: the row ends at its start time, without trailing blanks.
    std::string row = fmt::format(kRow, r.id, printable(r.experiment), experiment_width,
                                  printable(r.config), config_width, r.repetition, r.status,
                                  r.median_ms ? fmt::format("{:.3f}", *r.median_ms) : "-",
                                  r.started_at.empty() ? "-" : r.started_at, printable(r.error));
    row.erase(row.find_last_not_of(' ') + 1);
    out += row + "\n";
  }
  return out;
}

std::string steps_json(const std::vector<storage::StepExport>& rows) {
  JsonWriter json;
  json.array_of(rows, [](JsonWriter& w, const storage::StepExport& r) {
    w.begin_object()
        .field("run_id", r.run_id)
        .field("experiment", r.experiment)
        .field("config", r.config)
        .field("repetition", r.repetition)
        .field("step", r.step)
        .field("time_ms", r.time_ms)
        .field("last_rank", r.last_rank)
        .field("warmup", r.warmup)
        .end_object();
  });
  return json.str();
}

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

std::string steps_csv(const std::vector<storage::StepExport>& rows) {
  std::string out = "run_id,experiment,config,repetition,step,time_ms,last_rank,warmup\n";
  for (const auto& r : rows) {
    out += fmt::format("{},{},{},{},{},{},{},{}\n", r.run_id, csv_field(r.experiment),
                       csv_field(r.config), r.repetition, r.step, format_number(r.time_ms),
                       r.last_rank, r.warmup ? 1 : 0);
  }
  return out;
}

std::string merge_json(const std::string& output, const std::vector<MergedInput>& inputs) {
  JsonWriter json;
  json.begin_object().field("output", output).key("inputs").begin_array();
  for (const auto& [input, s] : inputs) {
    json.begin_object()
        .field("input", input)
        .field("experiments_added", s.experiments_added)
        .field("configurations_added", s.configurations_added)
        .field("runs_added", s.runs_added)
        .field("runs_replaced", s.runs_replaced)
        .field("runs_kept", s.runs_kept)
        .end_object();
  }
  return json.end_array().end_object().str();
}

std::string merge_text(const std::string& output, const std::vector<MergedInput>& inputs,
                       std::int64_t runs_stored) {
  return fmt::format("merged {} database(s) into {}: {} run(s) stored\n", inputs.size(), output,
                     runs_stored);
}

}  // namespace

std::string runs_document(const std::vector<storage::RunSummary>& runs, Format format) {
  return format == Format::kJson ? json_document(runs_json(runs)) : text_document(runs_text(runs));
}

std::string merge_document(const std::string& output, const std::vector<MergedInput>& inputs,
                           std::int64_t runs_stored, Format format) {
  return format == Format::kJson ? json_document(merge_json(output, inputs))
                                 : text_document(merge_text(output, inputs, runs_stored));
}

std::string steps_document(const std::vector<storage::StepExport>& rows, Format format) {
  return format == Format::kJson ? json_document(steps_json(rows)) : steps_csv(rows);
}

}  // namespace culprit::report
