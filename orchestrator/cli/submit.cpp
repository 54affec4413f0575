#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "command.hpp"
#include "culprit/errors.hpp"
#include "culprit/launch/command.hpp"
#include "culprit/manifest/json.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/manifest/planner.hpp"
#include "culprit/slurm/sweep.hpp"

namespace culprit::cli {
namespace {

struct SubmitOptions {
  CommonOptions common;
  std::string manifest;
  int shards = 0;
  std::string partition;
  std::string time;
  bool wait = false;
  bool status = false;
  bool resume = false;
  bool oversubscribe = false;
  std::vector<std::string> sbatch_args;
};

std::string database_path(const SubmitOptions& o, const manifest::Plan& plan) {
  if (!o.common.db.empty()) return o.common.db;
  if (!plan.settings.db.empty()) return plan.settings.db;
  return "culprit.db";
}

std::string duration_text(double seconds) {
  if (seconds < 0) return "?";
  const long s = std::lround(seconds);
  if (s < 60) return std::to_string(s) + "s";
  return std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s";
}

std::string progress_text(const slurm::SweepStatus& s, double elapsed_s) {
  // ETA from the rate of finished runs so far; "?" until one has finished.
  const double eta = s.finished > 0 && s.finished < s.planned
                         ? elapsed_s / s.finished * (s.planned - s.finished)
                         : (s.finished >= s.planned ? 0.0 : -1.0);
  return fmt::format(
      "tasks: {} pending, {} running, {} done, {} failed | runs {}/{} done ({} ok) | merge {} | "
      "elapsed {} ETA {}",
      s.pending_tasks, s.running_tasks, s.done_tasks, s.failed_tasks, s.finished, s.planned, s.ok,
      s.merge_state, duration_text(elapsed_s), duration_text(eta));
}

manifest::Json status_json(const slurm::SweepStatus& s, const slurm::Submission& sub) {
  manifest::Json::Array tasks;
  for (const auto& t : s.shards) {
    manifest::Json::Object o;
    o["shard"] = t.shard;
    o["job_id"] = t.job_id;
    o["state"] = t.state;
    o["reason"] = t.reason;
    o["exit_code"] = t.exit_code;
    o["log"] = t.log;
    o["db"] = sub.shard_db(t.shard);
    o["planned"] = t.planned;
    o["ok"] = t.ok;
    o["finished"] = t.finished;
    tasks.emplace_back(std::move(o));
  }
  manifest::Json::Object merge;
  merge["job_id"] = s.merge_job;
  merge["state"] = s.merge_state;
  merge["log"] = s.merge_log;
  manifest::Json::Object doc;
  doc["db"] = sub.db;
  doc["dir"] = sub.dir;
  doc["planned"] = s.planned;
  doc["ok"] = s.ok;
  doc["finished"] = s.finished;
  doc["merged_ok"] = s.merged_ok;
  doc["over"] = s.over();
  doc["tasks"] = tasks;
  doc["merge"] = merge;
  return manifest::Json(doc);
}

void print_status(const slurm::SweepStatus& s, const slurm::Submission& sub) {
  std::cout << fmt::format("sweep {} ({} shard(s), scripts and logs in {})\n", sub.db, sub.shards,
                           sub.dir);
  for (const auto& t : s.shards) {
    std::cout << fmt::format("  shard {}/{}  job {}  {}{}  runs {}/{} ok", t.shard, sub.shards,
                             t.job_id, t.state, t.reason.empty() ? "" : " (" + t.reason + ")", t.ok,
                             t.planned);
    const bool bad = t.state != "COMPLETED" && t.state != "PENDING" && t.state != "RUNNING";
    if (bad || t.ok < t.planned) std::cout << "  log " << t.log;
    std::cout << "\n";
  }
  std::cout << fmt::format("  merge  job {}  {}  log {}\n", s.merge_job, s.merge_state,
                           s.merge_log);
  std::cout << fmt::format("{} of {} planned run(s) ok in {}{}\n", s.merged_ok, s.planned, sub.db,
                           s.all_ok() ? ""
                           : s.over() ? "; complete it with --resume"
                                      : "; still running");
}

int wait_and_report(const SubmitOptions& o, const manifest::Plan& plan,
                    const slurm::Submission& sub) {
  const bool live = isatty(STDERR_FILENO) != 0;
  const auto start = std::chrono::steady_clock::now();
  std::string last;
  const auto status = slurm::wait_sweep(plan, sub, [&](const slurm::SweepStatus& s) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string line = progress_text(s, elapsed);
    if (live) {
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
      std::fflush(stderr);
    } else if (line.substr(0, line.find(" | elapsed")) != last) {
      spdlog::info("{}", line);  // plain lines, only when something changed
    }
    last = line.substr(0, line.find(" | elapsed"));
  });
  if (live) std::fputs("\n", stderr);
  if (o.common.json) {
    std::cout << status_json(status, sub).dump() << "\n";
  } else {
    print_status(status, sub);
  }
  return status.all_ok() ? exit_code::kOk : exit_code::kRunFailed;
}

}  // namespace

void register_submit(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand(
      "submit",
      "Submit a sweep to Slurm as a job array of shards plus a merge job; follow, check or "
      "complete it");
  auto o = std::make_shared<SubmitOptions>();
  command->add_option("MANIFEST", o->manifest, "The experiment manifest (TOML)")->required();
  command->add_option("SBATCH_ARGS", o->sbatch_args,
                      "After `--`: arguments passed to sbatch for the shard tasks");
  add_json_flag(*command, o->common);
  add_db_option(*command, o->common);
  command->add_option("--shards", o->shards,
                      "Split the planned runs over N array tasks (shard i/N each)");
  command->add_option("--partition", o->partition, "Slurm partition (default: the cluster's)");
  command->add_option("--time", o->time, "Time limit of each shard task (sbatch --time)");
  command->add_flag("--wait", o->wait,
                    "Follow the jobs until the merge is done and exit with the sweep's code");
  command->add_flag("--oversubscribe", o->oversubscribe,
                    "Allow more ranks than a node has cores (sbatch --overcommit --exclusive)");
  auto* status = command->add_flag(
      "--status", o->status,
      "Report the submitted sweep's tasks: Slurm state, runs ok, log of each failed task");
  auto* resume = command->add_flag(
      "--resume", o->resume, "Resubmit the shards whose runs are not all ok, then merge again");
  status->excludes(resume);
  command->callback([&outcome, o] {
    const auto plan = manifest::make_plan(manifest::load_manifest(o->manifest));
    const std::string db = database_path(*o, plan);
    if (o->status || o->resume) {
      auto sub = slurm::load_submission(db);
      if (o->resume) {
        const auto again = slurm::resume_sweep(plan, sub);
        spdlog::info("{}", again.empty() ? std::string("no shard to resubmit")
                                         : fmt::format("resubmitted {} shard(s) as job {}",
                                                       again.size(), sub.array_jobs.back()));
        if (o->wait) {
          outcome.exit_code = wait_and_report(*o, plan, sub);
          return;
        }
      }
      const auto s = slurm::sweep_status(plan, sub);
      if (o->common.json) {
        std::cout << status_json(s, sub).dump() << "\n";
      } else {
        print_status(s, sub);
      }
      outcome.exit_code = exit_code::kOk;
      return;
    }
    if (o->shards < 1) {
      throw UsageError("culprit submit needs --shards N (N >= 1): the number of array tasks");
    }
    slurm::SubmitRequest request;
    request.manifest_path = o->manifest;
    request.db = db;
    request.shards = o->shards;
    request.partition = o->partition;
    request.time = o->time;
    request.sbatch_args = o->sbatch_args;
    request.oversubscribe = o->oversubscribe;
    request.culprit = (std::filesystem::path(launch::executable_dir()) / "culprit").string();
    const auto sub = slurm::submit_sweep(plan, request);
    spdlog::info("submitted {} shard(s) as array job {}, merge job {} (scripts in {})", sub.shards,
                 sub.array_jobs.back(), sub.merge_job, sub.dir);
    if (o->wait) {
      outcome.exit_code = wait_and_report(*o, plan, sub);
      return;
    }
    if (o->common.json) {
      manifest::Json::Object doc;
      doc["db"] = sub.db;
      doc["dir"] = sub.dir;
      doc["shards"] = sub.shards;
      doc["ranks"] = sub.ranks;
      doc["array_job"] = sub.array_jobs.back();
      doc["merge_job"] = sub.merge_job;
      std::cout << manifest::Json(doc).dump() << "\n";
    } else {
      std::cout << fmt::format("array job {} ({} task(s)), merge job {}\n", sub.array_jobs.back(),
                               sub.shards, sub.merge_job);
    }
    outcome.exit_code = exit_code::kOk;
  });
}

}  // namespace culprit::cli
