#pragma once
// The Slurm client commands culprit uses, each started from an argv array (never a shell), and
// the parsing of their output. The cluster is whatever SLURM_CONF (or /etc/slurm) names.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace culprit::slurm {

struct ClientResult {
  int exit_code = -1;  // -1: did not start or was killed
  std::string out;
  std::string err;
  bool ok() const { return exit_code == 0; }
};

// Runs one Slurm command (argv[0] looked up in PATH) with a time limit.
ClientResult run_client(const std::vector<std::string>& argv, double timeout_s = 60);

// Same, but throws culprit::RunError naming the command and its stderr when it fails.
std::string run_client_or_throw(const std::vector<std::string>& argv, double timeout_s = 60);

// One `Key=Value Key=Value ...` record of `scontrol show ...` (records are separated by blank
// lines; values never contain spaces except a few trailing free-text keys, kept whole).
using Record = std::map<std::string, std::string>;
std::vector<Record> parse_scontrol_records(const std::string& text);

// The state of one job or array task as Slurm reports it.
struct JobState {
  std::string job_id;     // "12_3" for array task 3 of job 12, else "12"
  std::string state;      // PENDING RUNNING COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL ...
  std::string reason;     // squeue's reason / scontrol's Reason, "" when None
  std::string exit_code;  // "0:0" (code:signal), "" while unknown
  std::string source;     // squeue | sacct | scontrol | jobcomp
};

// `squeue --noheader --array --format=%i|%T|%r` lines; a pending array's tasks not split off yet
// ("12_[2-4,7%2]") are expanded to one entry per task.
std::vector<JobState> parse_squeue(const std::string& text);

// The entries of a jobcomp/filetxt log that belong to `job_id` (an array id matches its
// tasks); the last line of a job wins (a requeued job is logged more than once).
std::vector<JobState> parse_jobcomp(const std::string& text, const std::string& job_id);

// What Slurm knows about `job_id` (an array job gives one entry per task): squeue while queued
// or running; afterwards sacct when the cluster keeps accounting, else `scontrol show job`
// (kept MinJobAge seconds), else the jobcomp/filetxt log. Empty when Slurm forgot the job.
std::vector<JobState> job_states(const std::string& job_id);

// True for states after which a job never runs again.
bool is_final_state(const std::string& state);

// The cores of the biggest node of `partition` ("" = the default partition) and the number
// of nodes in it, from `scontrol show partition` and `scontrol show node`.
struct PartitionShape {
  std::string name;
  int nodes = 0;
  int max_cpus_per_node = 0;
};
PartitionShape partition_shape(const std::string& partition);

// sbatch --parsable ARGS... SCRIPT: the new job's id. Throws culprit::RunError with sbatch's
// message when it refuses.
std::string sbatch(const std::vector<std::string>& args, const std::string& script);

}  // namespace culprit::slurm
