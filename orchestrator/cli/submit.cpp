#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "culprit/errors.hpp"
#include "culprit/launch/launch_command.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/manifest/planner.hpp"
#include "culprit/report/sweep_report.hpp"
#include "culprit/slurm/sweep.hpp"
#include "subcommand.hpp"

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

int wait_and_report(const SubmitOptions& o, const manifest::Plan& plan,
                    const slurm::Submission& sub) {
  const bool live = isatty(STDERR_FILENO) != 0;
  const auto start = std::chrono::steady_clock::now();
  std::string last;
  const auto status = slurm::wait_sweep(plan, sub, [&](const slurm::SweepStatus& s) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string line = report::sweep_progress_line(s, elapsed);
    const std::string state = report::sweep_progress_state(s);
    if (live) {
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
      std::fflush(stderr);
    } else if (state != last) {
      spdlog::info("{}", line);  // plain lines, only when something changed
    }
    last = state;
  });
  if (live) std::fputs("\n", stderr);
  print(report::sweep_status_document(status, sub, o.common.format()));
  return status.all_ok() ? exit_code::kOk : exit_code::kRunFailed;
}

}  // namespace

void register_submit(CLI::App& app, Outcome& outcome) {
  const auto [command, o] = add_store_command<SubmitOptions>(
      app, "submit",
      "Submit a sweep to Slurm as a job array of shards plus a merge job; follow, check or "
      "complete it");
  command->add_option("MANIFEST", o->manifest, "The experiment manifest (TOML)")->required();
  command->add_option("SBATCH_ARGS", o->sbatch_args,
                      "After `--`: arguments passed to sbatch for the shard tasks");
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
  command->callback([&outcome, o = o] {
    const auto plan = manifest::make_plan(manifest::load_manifest(o->manifest));
    const std::string db = store_path(o->common, plan.settings.db);
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
      print(report::sweep_status_document(s, sub, o->common.format()));
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
    print(report::submission_document(sub, o->common.format()));
    outcome.exit_code = exit_code::kOk;
  });
}

}  // namespace culprit::cli
