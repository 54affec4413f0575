#include "culprit/report/run_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "culprit/report/json_writer.hpp"
#include "culprit/report/terminal_text.hpp"

namespace culprit::report {

std::string run_outcome_text(const launch::RunReport& run) {
  if (run.status == storage::RunStatus::kOk) {
    return fmt::format("ok, median {:.3f} ms", run.median_ms.value_or(NAN));
  }
  return std::string(storage::to_text(run.status)) + ": " + run.error;
}

std::string run_result_json(const std::string& db, const launch::ExecuteResult& result) {
  JsonWriter json;
  json.begin_object()
      .field("db", db)
      .field("planned", result.planned)
      .field("already_ok", result.already_ok)
      .field("interrupted", result.interrupted)
      .field("executed", static_cast<int>(result.runs.size()))
      .field("not_ok", result.not_ok)
      .field("stopped_early", result.stopped_early)
      .field("stop_reason", result.stop_reason)
      .field("pending", result.pending)
      .key("runs")
      .begin_array();
  for (const auto& r : result.runs) {
    json.begin_object()
        .field("id", r.run_id)
        .field("config", r.config)
        .field("repetition", r.repetition)
        .field("attempt", r.attempt)
        .field("status", storage::to_text(r.status))
        .field_or_null("median_ms", r.median_ms)
        .field("error", r.error)
        .field("wall_s", r.wall_s)
        .end_object();
  }
  return json.end_array().end_object().str();
}

std::string run_result_text(const std::string& db, const std::string& manifest,
                            const launch::ExecuteResult& r) {
  std::string out = fmt::format(
      "{} planned run(s) in {}: {} ok, {} not ok ({} executed now, {} already "
      "ok{})\n",
      r.planned, db, r.planned - r.not_ok, r.not_ok, r.runs.size(), r.already_ok,
      r.stopped_early ? ", stopped: " + r.stop_reason : std::string());
  bool failed_kept = false;
  for (const auto& run : r.runs) {
    if (run.status != storage::RunStatus::kOk) {
      out += fmt::format("  run {} {} #{}: {}\n", run.run_id, printable(run.config), run.repetition,
                         printable(run_outcome_text(run)));
      failed_kept = failed_kept || run.status != storage::RunStatus::kInterrupted;
    }
  }
  if (r.pending > 0) {
    out += fmt::format("{} run(s) left pending: `culprit run {}` again continues\n", r.pending,
                       manifest);
  }
  if (failed_kept || r.not_ok > r.pending) {
    out += fmt::format(
        "failed runs are kept as they are: fix the cause, then `culprit run {} --retry-failed` "
        "runs them again\n",
        manifest);
  }
  return out;
}

std::string run_result_document(const std::string& db, const std::string& manifest,
                                const launch::ExecuteResult& result, Format format) {
  return format == Format::kJson ? json_document(run_result_json(db, result))
                                 : text_document(run_result_text(db, manifest, result));
}

}  // namespace culprit::report
