#include "culprit/slurm/sweep.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "culprit/common/text.hpp"
#include "culprit/errors.hpp"
#include "culprit/storage/queries.hpp"
#include "culprit/storage/store.hpp"

namespace culprit::slurm {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRecordName = "submission.txt";

void write_file(const fs::path& path, const std::string& text, bool executable = false) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw RunError("cannot write " + tmp.string());
  }
  if (executable) {
    fs::permissions(tmp, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add);
  }
  fs::rename(tmp, path);
}

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + shell_quote(w);
  return out;
}

// The most ranks any configuration launches (the simulator runs as one process).
int ranks_needed(const manifest::Plan& plan, std::string& label) {
  int most = 1;
  for (const auto& c : plan.configs) {
    const int ranks = c.backend == "sim" ? 1 : c.ranks;
    if (ranks > most) {
      most = ranks;
      label = c.label;
    }
  }
  if (label.empty() && !plan.configs.empty()) label = plan.configs.front().label;
  return most;
}

std::string task_script(const Submission& s) {
  std::ostringstream out;
  out << "#!/bin/bash\n"
      << "# Written by `culprit submit`; submitted as a job array (the sbatch command line is in\n"
      << "# " << kRecordName << "). Task i runs shard i of " << s.shards
      << " into its own database; rerunning a\n"
      << "# task resumes its shard (ok runs are kept, runs not ok are run again).\n"
      << "set -eu\n"
      << "i=${SLURM_ARRAY_TASK_ID:?this script runs as a task of a Slurm job array}\n"
      << "dir=" << shell_quote(s.dir) << "\n"
      << "exec " << shell_quote(s.culprit) << " run " << shell_quote(s.manifest_path)
      << " --shard \"$i/" << s.shards << "\" --db \"$dir/shard-$i.db\" --retry-failed\n";
  return out.str();
}

std::string merge_script(const Submission& s) {
  std::ostringstream out;
  out << "#!/bin/bash\n"
      << "# Written by `culprit submit`: runs after every task of the array (afterany) and merges\n"
      << "# the shard databases that exist into the sweep's database.\n"
      << "set -eu\n"
      << "dir=" << shell_quote(s.dir) << "\n"
      << "shards=()\n"
      << "for i in $(seq 1 " << s.shards << "); do\n"
      << "  if [ -e \"$dir/shard-$i.db\" ]; then shards+=(\"$dir/shard-$i.db\"); fi\n"
      << "done\n"
      << "if [ ${#shards[@]} -eq 0 ]; then echo 'no shard database to merge' >&2; exit 1; fi\n"
      << "exec " << shell_quote(s.culprit) << " merge " << shell_quote(s.db)
      << " \"${shards[@]}\"\n";
  return out.str();
}

std::vector<std::string> common_args(const Submission& s) {
  std::vector<std::string> args;
  if (!s.partition.empty()) args.push_back("--partition=" + s.partition);
  return args;
}

std::string array_spec(const std::vector<int>& shards) {
  std::string spec;
  for (int i : shards) spec += (spec.empty() ? "" : ",") + std::to_string(i);
  return spec;
}

// Submits the array of `shards` and a merge job after it; records both in `s`.
void submit_jobs(Submission& s, const std::vector<int>& shards, const std::string& name) {
  const fs::path dir(s.dir);
  std::vector<std::string> array_args = common_args(s);
  array_args.insert(array_args.end(),
                    {"--job-name=culprit-" + name, "--array=" + array_spec(shards),
                     "--ntasks=" + std::to_string(s.ranks),
                     "--output=" + (dir / "logs" / "shard-%a.out").string(), "--open-mode=append",
                     "--chdir=" + fs::current_path().string()});
  if (!s.time.empty()) array_args.push_back("--time=" + s.time);
  if (s.oversubscribe) array_args.insert(array_args.end(), {"--overcommit", "--exclusive"});
  array_args.insert(array_args.end(), s.sbatch_args.begin(), s.sbatch_args.end());
  const std::string array_job = sbatch(array_args, (dir / "shards.sbatch").string());
  s.array_jobs.push_back(array_job);
  for (int i : shards) s.task_jobs[i] = array_job + "_" + std::to_string(i);

  std::vector<std::string> merge_args = common_args(s);
  merge_args.insert(
      merge_args.end(),
      {"--job-name=culprit-merge-" + name, "--ntasks=1", "--dependency=afterany:" + array_job,
       "--kill-on-invalid-dep=no", "--output=" + s.merge_log(), "--open-mode=append",
       "--chdir=" + fs::current_path().string()});
  s.merge_job = sbatch(merge_args, (dir / "merge.sbatch").string());

  std::ofstream history(dir / "sbatch-commands.txt", std::ios::app);
  history << "sbatch --parsable " << join_words(array_args) << " "
          << shell_quote((dir / "shards.sbatch").string()) << "   # -> " << array_job << "\n"
          << "sbatch --parsable " << join_words(merge_args) << " "
          << shell_quote((dir / "merge.sbatch").string()) << "   # -> " << s.merge_job << "\n";
}

void save(const Submission& s) {
  std::ostringstream out;
  out << "# culprit submit: what was submitted (read by --status and --resume)\n"
      << "manifest=" << s.manifest_path << "\n"
      << "db=" << s.db << "\n"
      << "culprit=" << s.culprit << "\n"
      << "shards=" << s.shards << "\n"
      << "ranks=" << s.ranks << "\n"
      << "partition=" << s.partition << "\n"
      << "time=" << s.time << "\n"
      << "oversubscribe=" << (s.oversubscribe ? 1 : 0) << "\n";
  for (const auto& a : s.sbatch_args) out << "sbatch_arg=" << a << "\n";
  for (const auto& a : s.array_jobs) out << "array_job=" << a << "\n";
  for (const auto& [shard, job] : s.task_jobs) out << "task." << shard << "=" << job << "\n";
  out << "merge_job=" << s.merge_job << "\n";
  write_file(fs::path(s.dir) / kRecordName, out.str());
}

struct Counts {
  int ok = 0;
  int finished = 0;
};

// Counts in a store that may be being written by a running task; zeros when absent. Only the
// planned repetitions count (adaptive sampling may have added more to a store).
Counts count_runs(const std::string& path, const std::string& experiment, int repetitions) {
  Counts c;
  std::error_code ec;
  if (!fs::exists(path, ec)) return c;
  try {
    storage::Db db(path, storage::Db::Mode::kReadOnly);
    const storage::PlannedRunCounts counts =
        storage::count_planned_runs(db, experiment, repetitions);
    c.ok = counts.ok;
    c.finished = counts.finished;
  } catch (const std::exception&) {  // not created yet, or mid-migration: nothing counted
  }
  return c;
}

JobState find_state(const std::map<std::string, std::vector<JobState>>& by_array,
                    const std::string& job_id) {
  const std::string array = job_id.substr(0, job_id.find('_'));
  if (auto it = by_array.find(array); it != by_array.end()) {
    for (const auto& s : it->second) {
      if (s.job_id == job_id) return s;
    }
    // An array job that has not split its tasks yet is listed under the array id alone.
    for (const auto& s : it->second) {
      if (s.job_id == array) return s;
    }
  }
  JobState unknown;
  unknown.job_id = job_id;
  unknown.state = "UNKNOWN";
  return unknown;
}

bool settled(const std::string& state) {
  return state == "UNKNOWN" || is_final_state(state);
}

}  // namespace

std::string Submission::shard_db(int shard) const {
  return (fs::path(dir) / ("shard-" + std::to_string(shard) + ".db")).string();
}
std::string Submission::task_log(int shard) const {
  return (fs::path(dir) / "logs" / ("shard-" + std::to_string(shard) + ".out")).string();
}
std::string Submission::merge_log() const {
  return (fs::path(dir) / "logs" / "merge.out").string();
}

bool SweepStatus::over() const {
  if (!settled(merge_state)) return false;
  return std::all_of(shards.begin(), shards.end(),
                     [](const ShardStatus& s) { return settled(s.state); });
}

Submission submit_sweep(const manifest::Plan& plan, const SubmitRequest& request) {
  if (request.shards < 1) {
    throw UsageError("--shards " + std::to_string(request.shards) + ": give at least 1");
  }
  const int runs = static_cast<int>(plan.runs.size());
  if (request.shards > runs) {
    throw UsageError("--shards " + std::to_string(request.shards) + " is more than the " +
                     std::to_string(runs) + " planned run(s): every shard must get a run; use " +
                     "--shards " + std::to_string(runs) + " or fewer");
  }
  std::string widest;
  const int ranks = ranks_needed(plan, widest);
  const PartitionShape shape = partition_shape(request.partition);
  const int nodes = std::max(1, shape.nodes);
  const int per_node = plan.settings.launch.ranks_per_node > 0
                           ? std::min(ranks, plan.settings.launch.ranks_per_node)
                           : (ranks + nodes - 1) / nodes;
  if (per_node > shape.max_cpus_per_node && !request.oversubscribe) {
    throw UsageError(
        "configuration '" + widest + "' needs " + std::to_string(ranks) + " ranks, " +
        std::to_string(per_node) + " per node, but the nodes of partition '" + shape.name +
        "' have at most " + std::to_string(shape.max_cpus_per_node) + " cores (" +
        std::to_string(shape.nodes) +
        " node(s)): Slurm would refuse or queue the job forever. Lower the ranks, name a "
        "partition with bigger nodes (--partition), set [launch] ranks_per_node, or pass "
        "--oversubscribe to run more ranks than cores");
  }

  Submission s;
  s.db = fs::absolute(request.db).lexically_normal().string();
  s.dir = storage::store_folder(s.db, storage::StoreFolder::kSlurm);
  s.manifest_path = fs::absolute(request.manifest_path).lexically_normal().string();
  s.culprit = request.culprit;
  s.shards = request.shards;
  s.ranks = ranks;
  s.partition = request.partition;
  s.time = request.time;
  s.sbatch_args = request.sbatch_args;
  s.oversubscribe = request.oversubscribe;
  if (fs::exists(fs::path(s.dir) / kRecordName)) {
    throw UsageError(s.dir + " already holds a submitted sweep: follow it with `culprit submit " +
                     request.manifest_path + " --db " + request.db +
                     " --status`, complete it with --resume, or remove that folder to start over");
  }
  fs::create_directories(fs::path(s.dir) / "logs");
  write_file(fs::path(s.dir) / "shards.sbatch", task_script(s), true);
  write_file(fs::path(s.dir) / "merge.sbatch", merge_script(s), true);
  std::vector<int> all(static_cast<std::size_t>(s.shards));
  for (int i = 0; i < s.shards; ++i) all[static_cast<std::size_t>(i)] = i + 1;
  submit_jobs(s, all, plan.settings.name);
  save(s);
  return s;
}

Submission load_submission(const std::string& db) {
  Submission s;
  s.db = fs::absolute(db).lexically_normal().string();
  s.dir = storage::store_folder(s.db, storage::StoreFolder::kSlurm);
  std::ifstream in(fs::path(s.dir) / kRecordName);
  if (!in) {
    throw UsageError(
        "no sweep was submitted for " + db + " (" + s.dir + "/" + kRecordName +
        " is missing): submit it first with `culprit submit MANIFEST --shards N --db " + db + "`");
  }
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq);
    const std::string value = line.substr(eq + 1);
    try {
      if (key == "manifest") s.manifest_path = value;
      if (key == "culprit") s.culprit = value;
      if (key == "shards") s.shards = std::stoi(value);
      if (key == "ranks") s.ranks = std::stoi(value);
      if (key == "partition") s.partition = value;
      if (key == "time") s.time = value;
      if (key == "oversubscribe") s.oversubscribe = value == "1";
      if (key == "sbatch_arg") s.sbatch_args.push_back(value);
      if (key == "array_job") s.array_jobs.push_back(value);
      if (key == "merge_job") s.merge_job = value;
      if (key.rfind("task.", 0) == 0) s.task_jobs[std::stoi(key.substr(5))] = value;
    } catch (const std::exception&) {
      throw UsageError(s.dir + "/" + kRecordName + ": bad line '" + line +
                       "': remove the folder and submit again");
    }
  }
  return s;
}

SweepStatus sweep_status(const manifest::Plan& plan, const Submission& submission) {
  SweepStatus status;
  std::map<std::string, std::vector<JobState>> by_array;
  for (const auto& [shard, job] : submission.task_jobs) {
    const std::string array = job.substr(0, job.find('_'));
    if (!by_array.count(array)) by_array[array] = job_states(array);
  }
  for (int i = 1; i <= submission.shards; ++i) {
    ShardStatus shard;
    shard.shard = i;
    shard.log = submission.task_log(i);
    for (const auto& run : plan.runs) {
      if (run.position % submission.shards == i - 1) ++shard.planned;
    }
    const auto job = submission.task_jobs.find(i);
    shard.job_id = job == submission.task_jobs.end() ? "" : job->second;
    const JobState state = find_state(by_array, shard.job_id);
    shard.state = state.state;
    shard.reason = state.reason;
    shard.exit_code = state.exit_code;
    const Counts counts =
        count_runs(submission.shard_db(i), plan.settings.name, plan.settings.repetitions);
    shard.ok = counts.ok;
    shard.finished = counts.finished;
    status.planned += shard.planned;
    status.ok += shard.ok;
    status.finished += shard.finished;
    if (shard.state == "PENDING" || shard.state == "CONFIGURING") {
      ++status.pending_tasks;
    } else if (!settled(shard.state)) {
      ++status.running_tasks;
    } else if (shard.state == "COMPLETED") {
      ++status.done_tasks;
    } else {
      ++status.failed_tasks;
    }
    status.shards.push_back(shard);
  }
  status.merge_job = submission.merge_job;
  status.merge_log = submission.merge_log();
  const auto merge = job_states(submission.merge_job);
  status.merge_state = merge.empty() ? "UNKNOWN" : merge.front().state;
  status.merged_ok = count_runs(submission.db, plan.settings.name, plan.settings.repetitions).ok;
  return status;
}

std::vector<int> resume_sweep(const manifest::Plan& plan, Submission& submission) {
  const SweepStatus status = sweep_status(plan, submission);
  std::vector<int> again;
  for (const auto& shard : status.shards) {
    if (!settled(shard.state)) continue;  // still queued or running: it finishes on its own
    if (shard.ok < shard.planned) again.push_back(shard.shard);
  }
  const bool busy = std::any_of(status.shards.begin(), status.shards.end(),
                                [](const ShardStatus& s) { return !settled(s.state); });
  if (again.empty()) {
    // Every shard is complete: only a merge that did not happen (or failed) is left to do.
    if (!busy && status.merged_ok < status.ok && settled(status.merge_state)) {
      std::vector<std::string> merge_args = common_args(submission);
      merge_args.insert(merge_args.end(),
                        {"--job-name=culprit-merge-" + plan.settings.name, "--ntasks=1",
                         "--output=" + submission.merge_log(), "--open-mode=append"});
      submission.merge_job =
          sbatch(merge_args, (fs::path(submission.dir) / "merge.sbatch").string());
      save(submission);
    }
    return again;
  }
  submit_jobs(submission, again, plan.settings.name);
  save(submission);
  return again;
}

SweepStatus wait_sweep(const manifest::Plan& plan, const Submission& submission,
                       const std::function<void(const SweepStatus&)>& on_poll, double interval_s) {
  for (;;) {
    SweepStatus status = sweep_status(plan, submission);
    if (on_poll) on_poll(status);
    if (status.over()) return status;
    std::this_thread::sleep_for(std::chrono::duration<double>(interval_s));
  }
}

}  // namespace culprit::slurm
