#pragma once
// A sweep submitted to Slurm: one job array whose task i runs `culprit run MANIFEST --shard i/N
// --db <db>.slurm/shard-i.db`, and a merge job (afterany on the array) that merges every
// shard that exists into the sweep's database. Everything it writes lives in <db>.slurm/:
// the batch scripts (kept, readable), the tasks' logs, the shard databases and
// submission.txt, the record `--status` and `--resume` read.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "culprit/manifest/plan.hpp"
#include "culprit/slurm/client.hpp"

namespace culprit::slurm {

struct SubmitRequest {
  std::string manifest_path;  // made absolute
  std::string db;             // the merged database (made absolute)
  int shards = 1;
  std::string partition;                 // "" = the cluster's default
  std::string time;                      // --time for each task, "" = the partition's default
  std::vector<std::string> sbatch_args;  // after `--` on the command line, passed to sbatch
  bool oversubscribe = false;  // allow more ranks than a node's cores (--overcommit --exclusive)
  std::string culprit;         // the culprit executable the scripts run (absolute)
};

// What was submitted; written to and read from <db>.slurm/submission.txt.
struct Submission {
  std::string dir;  // <db>.slurm
  std::string manifest_path;
  std::string db;
  std::string culprit;
  int shards = 1;
  int ranks = 1;  // tasks per array task (the most ranks a configuration needs)
  std::string partition;
  std::string time;
  std::vector<std::string> sbatch_args;
  bool oversubscribe = false;
  std::map<int, std::string> task_jobs;  // shard -> "ARRAYID_SHARD" of its latest submission
  std::string merge_job;                 // the latest merge job's id
  std::vector<std::string> array_jobs;   // every array job submitted, oldest first

  std::string shard_db(int shard) const;
  std::string task_log(int shard) const;
  std::string merge_log() const;
};

// Checks the request against the plan and the cluster, writes the scripts and submits the
// array and the merge job. Throws culprit::UsageError (exit 2) for a sweep that cannot run:
// more ranks per node than the partition's nodes have cores (unless oversubscribe), more
// shards than runs, a missing partition; culprit::RunError when sbatch refuses.
Submission submit_sweep(const manifest::Plan& plan, const SubmitRequest& request);

// Reads <db>.slurm/submission.txt. Throws culprit::UsageError when there is none.
Submission load_submission(const std::string& db);

struct ShardStatus {
  int shard = 0;
  std::string job_id;     // "12_3"
  std::string state;      // Slurm's state, "UNKNOWN" when Slurm forgot the job
  std::string reason;     // why it pends / why it ended, when Slurm says
  std::string exit_code;  // "code:signal"
  std::string log;        // the task's stdout/stderr file
  int planned = 0;        // runs of the plan in this shard
  int ok = 0;             // ok runs in its database
  int finished = 0;       // ok + failed + timeout + crashed
};

struct SweepStatus {
  std::vector<ShardStatus> shards;
  std::string merge_job;
  std::string merge_state;
  std::string merge_log;
  int planned = 0;    // runs of the plan
  int ok = 0;         // ok in the shard databases
  int finished = 0;   // finished in the shard databases
  int merged_ok = 0;  // ok runs of the experiment in the merged database
  int pending_tasks = 0, running_tasks = 0, done_tasks = 0, failed_tasks = 0;
  bool over() const;  // every task and the merge job reached a final state
  bool all_ok() const { return merged_ok >= planned; }
};

SweepStatus sweep_status(const manifest::Plan& plan, const Submission& submission);

// Resubmits the shards whose runs are not all ok (an array of just those tasks, running
// `culprit run ... --retry-failed` on their databases, so ok runs are kept and never run
// twice) and a new merge job. Returns the shards resubmitted (none: the sweep is complete or
// still running; a shard whose task is still queued or running is not resubmitted).
std::vector<int> resume_sweep(const manifest::Plan& plan, Submission& submission);

// Polls the jobs (squeue/scontrol, not `sbatch --wait`, which polls at 2, 8, then every 32 s)
// every `interval_s` until the sweep is over, calling `on_poll` with each status.
SweepStatus wait_sweep(const manifest::Plan& plan, const Submission& submission,
                       const std::function<void(const SweepStatus&)>& on_poll,
                       double interval_s = 1.0);

}  // namespace culprit::slurm
