#include "culprit/report/sweep_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "culprit/report/json_writer.hpp"

namespace culprit::report {
namespace {

std::string duration_text(double seconds) {
  if (seconds < 0) return "?";
  const long s = std::lround(seconds);
  if (s < 60) return std::to_string(s) + "s";
  return std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s";
}

std::string submission_json(const slurm::Submission& s) {
  JsonWriter json;
  json.begin_object()
      .field("db", s.db)
      .field("dir", s.dir)
      .field("shards", s.shards)
      .field("ranks", s.ranks)
      .field("array_job", s.array_jobs.empty() ? std::string() : s.array_jobs.back())
      .field("merge_job", s.merge_job)
      .end_object();
  return json.str();
}

std::string submission_text(const slurm::Submission& s) {
  return fmt::format(
      "array job {} ({} task(s) of {} rank(s)), merge job {}; scripts and logs in "
      "{}\n",
      s.array_jobs.empty() ? std::string() : s.array_jobs.back(), s.shards, s.ranks, s.merge_job,
      s.dir);
}

}  // namespace

std::string sweep_progress_state(const slurm::SweepStatus& s) {
  return fmt::format(
      "tasks: {} pending, {} running, {} done, {} failed | runs {}/{} done ({} ok) | merge {}",
      s.pending_tasks, s.running_tasks, s.done_tasks, s.failed_tasks, s.finished, s.planned, s.ok,
      s.merge_state);
}

std::string sweep_progress_line(const slurm::SweepStatus& s, double elapsed_s) {
  const double eta = s.finished >= s.planned ? 0.0
                     : s.finished > 0        ? elapsed_s / s.finished * (s.planned - s.finished)
                                             : -1.0;
  return sweep_progress_state(s) +
         fmt::format(" | elapsed {} ETA {}", duration_text(elapsed_s), duration_text(eta));
}

std::string sweep_status_json(const slurm::SweepStatus& s, const slurm::Submission& sub) {
  JsonWriter json;
  json.begin_object()
      .field("db", sub.db)
      .field("dir", sub.dir)
      .field("planned", s.planned)
      .field("ok", s.ok)
      .field("finished", s.finished)
      .field("merged_ok", s.merged_ok)
      .field("over", s.over());
  json.key("tasks").begin_array();
  for (const auto& t : s.shards) {
    json.begin_object()
        .field("shard", t.shard)
        .field("job_id", t.job_id)
        .field("state", t.state)
        .field("reason", t.reason)
        .field("exit_code", t.exit_code)
        .field("log", t.log)
        .field("db", sub.shard_db(t.shard))
        .field("planned", t.planned)
        .field("ok", t.ok)
        .field("finished", t.finished)
        .end_object();
  }
  json.end_array();
  json.key("merge")
      .begin_object()
      .field("job_id", s.merge_job)
      .field("state", s.merge_state)
      .field("log", s.merge_log)
      .end_object();
  return json.end_object().str();
}

std::string sweep_status_text(const slurm::SweepStatus& s, const slurm::Submission& sub) {
  std::string out =
      fmt::format("sweep {} ({} shard(s), scripts and logs in {})\n", sub.db, sub.shards, sub.dir);
  for (const auto& t : s.shards) {
    out += fmt::format("  shard {}/{}  job {}  {}{}  runs {}/{} ok", t.shard, sub.shards, t.job_id,
                       t.state, t.reason.empty() ? "" : " (" + t.reason + ")", t.ok, t.planned);
    const bool bad = t.state != "COMPLETED" && t.state != "PENDING" && t.state != "RUNNING";
    if (bad || t.ok < t.planned) out += "  log " + t.log;
    out += "\n";
  }
  out += fmt::format("  merge  job {}  {}  log {}\n", s.merge_job, s.merge_state, s.merge_log);
  out += fmt::format("{} of {} planned run(s) ok in {}{}\n", s.merged_ok, s.planned, sub.db,
                     s.all_ok() ? ""
                     : s.over() ? "; complete it with --resume"
                                : "; still running");
  return out;
}

std::string submission_document(const slurm::Submission& submission, Format format) {
  return format == Format::kJson ? json_document(submission_json(submission))
                                 : text_document(submission_text(submission));
}

std::string sweep_status_document(const slurm::SweepStatus& status,
                                  const slurm::Submission& submission, Format format) {
  return format == Format::kJson ? json_document(sweep_status_json(status, submission))
                                 : text_document(sweep_status_text(status, submission));
}

}  // namespace culprit::report
