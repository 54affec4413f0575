#include "culprit/report/run_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "culprit/common/text.hpp"
#include "culprit/report/json_writer.hpp"
#include "culprit/report/terminal_text.hpp"

namespace culprit::report {

std::string run_outcome_text(const launch::RunReport& run) {
  if (run.status == storage::RunStatus::kOk) {
    return fmt::format("ok, median {:.3f} ms", run.median_ms.value_or(NAN));
  }
  return std::string(storage::to_text(run.status)) + ": " + run.error;
}

namespace {

void write_run(JsonWriter& json, const launch::RunReport& r) {
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

const stats::StoredComparison* comparison_of(const bisect::SweepDecisions& s,
                                             const std::string& label) {
  for (const auto& c : s.judgement.comparisons.comparisons) {
    if (c.candidate_label == label) return &c;
  }
  return nullptr;
}

void write_sampling(JsonWriter& json, const bisect::SweepDecisions& s) {
  json.key("sampling");
  if (!s.sampled) {
    json.null();
    return;
  }
  const auto& settings = s.judgement.settings;
  json.begin_object()
      .field("alpha", settings.alpha)
      .field("looks", settings.looks)
      .field("alpha_per_comparison", settings.alpha_per_comparison)
      .field("added", static_cast<int>(s.added.runs.size()))
      .field("added_not_ok", s.added.not_ok)
      .key("decisions")
      .begin_array();
  for (const auto& d : s.decisions) {
    const auto* c = comparison_of(s, d.config);
    json.begin_object().field("config", d.config);
    if (c != nullptr) {
      json.field("verdict", stats::verdict_name(c->comparison.verdict))
          .field("relative", c->comparison.relative)
          .field("baseline_runs", static_cast<int>(c->baseline_ms.size()))
          .field("candidate_runs", static_cast<int>(c->candidate_ms.size()));
    } else {
      json.key("verdict").null();
    }
    json.field("reason", d.reason).end_object();
  }
  json.end_array().end_object();
}

std::string sampling_text(const bisect::SweepDecisions& s) {
  if (!s.sampled) {
    return s.not_sampled.empty() ? "" : "adaptive sampling not done: " + s.not_sampled + "\n";
  }
  const auto& settings = s.judgement.settings;
  std::string out = fmt::format(
      "adaptive sampling: {} run(s) added ({} not ok); each comparison judged at alpha {:.4g} "
      "({:.4g} over {} planned looks), as `culprit compare` judges it:\n",
      s.added.runs.size(), s.added.not_ok, settings.alpha_per_comparison, settings.alpha,
      settings.looks);
  const std::size_t width =
      column_width(32, s.decisions, [](const auto& d) { return printable(d.config); });
  for (const auto& d : s.decisions) {
    const auto* c = comparison_of(s, d.config);
    if (c == nullptr) {
      out += fmt::format("  {:<{}} {}\n", printable(d.config), width, d.reason);
      continue;
    }
    out +=
        fmt::format("  {:<{}} {:<12} {:>+8.2f} %  {} vs {} runs  ({})\n", printable(d.config),
                    width, stats::verdict_name(c->comparison.verdict), c->comparison.relative * 100,
                    c->baseline_ms.size(), c->candidate_ms.size(), d.reason);
  }
  return out;
}

std::string run_result_json(const std::string& db, const launch::ExecuteResult& result,
                            const bisect::SweepDecisions& sampling) {
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
  for (const auto& r : result.runs) write_run(json, r);
  for (const auto& r : sampling.added.runs) write_run(json, r);
  json.end_array();
  write_sampling(json, sampling);
  return json.end_object().str();
}

// A word of a shell command as typed: as it is when only safe characters, else single-quoted.
std::string shell_word(const std::string& word) {
  const bool safe = !word.empty() && word.find_first_not_of(
                                         "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                         "0123456789_./:=@%+-,") == std::string::npos;
  return safe ? word : shell_quote(word);
}

}  // namespace

std::string run_again_command(const std::string& db, const std::string& manifest,
                              const std::string& shard) {
  std::string command = "culprit run " + shell_word(manifest) + " --db " + shell_word(db);
  if (!shard.empty() && shard != "1/1") command += " --shard " + shell_word(shard);
  return command;
}

namespace {

std::string run_result_text(const std::string& db, const std::string& manifest,
                            const std::string& shard, const launch::ExecuteResult& r,
                            const bisect::SweepDecisions& sampling) {
  const std::string again = run_again_command(db, manifest, shard);
  std::string out = fmt::format(
      "{} planned run(s) in {}: {} ok, {} not ok ({} executed now, {} already "
      "ok{})\n",
      r.planned, db, r.planned - r.not_ok, r.not_ok, r.runs.size(), r.already_ok,
      r.stopped_early ? ", stopped: " + r.stop_reason : std::string());
  out += sampling_text(sampling);
  bool failed_kept = false;
  std::vector<launch::RunReport> runs = r.runs;
  runs.insert(runs.end(), sampling.added.runs.begin(), sampling.added.runs.end());
  for (const auto& run : runs) {
    if (run.status != storage::RunStatus::kOk) {
      out += fmt::format("  run {} {} #{}: {}\n", run.run_id, printable(run.config), run.repetition,
                         printable(run_outcome_text(run)));
      failed_kept = failed_kept || run.status != storage::RunStatus::kInterrupted;
    }
  }
  if (r.pending > 0) {
    out += fmt::format("{} run(s) left pending: `{}` again continues\n", r.pending, again);
  }
  if (failed_kept || r.not_ok > r.pending || sampling.added.not_ok > 0) {
    out += fmt::format(
        "failed runs are kept as they are: fix the cause, then `{} --retry-failed` runs them "
        "again\n",
        again);
  }
  return out;
}

}  // namespace

std::string run_result_document(const std::string& db, const std::string& manifest,
                                const std::string& shard, const launch::ExecuteResult& result,
                                const bisect::SweepDecisions& sampling, Format format) {
  return format == Format::kJson
             ? json_document(run_result_json(db, result, sampling))
             : text_document(run_result_text(db, manifest, shard, result, sampling));
}

}  // namespace culprit::report
