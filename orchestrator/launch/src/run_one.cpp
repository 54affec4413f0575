#include "run_one.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>

#include "contention.hpp"
#include "culprit/common/json.hpp"
#include "culprit/launch/interrupt.hpp"
#include "culprit/launch/process.hpp"
#include "culprit/launch/record_run.hpp"
#include "culprit/storage/ingest.hpp"

namespace culprit::launch::detail {
namespace {

namespace fs = std::filesystem;

std::string argv_json(const std::vector<std::string>& argv) {
  Json::Array array;
  for (const auto& arg : argv) array.emplace_back(arg);
  return Json(array).dump();
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// What a process that did not exit 0 counts as; nullopt when it exited 0.
std::optional<storage::RunStatus> classify(const ProcessResult& p, double timeout_s,
                                           std::string& error) {
  if (!p.started) {
    error = "launch failed: " + p.launch_error;
    return storage::RunStatus::kFailed;
  }
  if (p.interrupted_by != 0) {
    error = "interrupted by " + signal_name(p.interrupted_by) +
            " (its process group was terminated); `culprit run` again resumes";
    return storage::RunStatus::kInterrupted;
  }
  if (p.timed_out) {
    error = "killed after the timeout of " + format_number(timeout_s) + " s (experiment.timeout_s)";
    return storage::RunStatus::kTimeout;
  }
  if (p.signal) {
    error = "killed by signal " + std::to_string(*p.signal);
    return storage::RunStatus::kCrashed;
  }
  // mpirun exits nonzero when a rank dies of a signal; its report says so.
  const auto signal_line = p.stderr_tail.find("exited on signal");
  if (p.exit_code && *p.exit_code != 0 && signal_line != std::string::npos) {
    const auto begin = p.stderr_tail.rfind('\n', signal_line);
    const auto end = p.stderr_tail.find('\n', signal_line);
    error = "a rank was killed by a signal (" +
            p.stderr_tail.substr(begin == std::string::npos ? 0 : begin + 1,
                                 end == std::string::npos ? std::string::npos : end - (begin + 1)) +
            ")";
    return storage::RunStatus::kCrashed;
  }
  // When a rank dies of a signal before mpirun notices it as such, mpirun passes the status on
  // the shell's way, 128 + signal (137 for SIGKILL), and reports a "non-zero exit code".
  constexpr int kShellSignalBase = 128;
  if (p.exit_code && *p.exit_code > kShellSignalBase && *p.exit_code < kShellSignalBase + 32 &&
      (p.stderr_tail.find("mpirun") != std::string::npos ||
       p.stderr_tail.find("Primary job") != std::string::npos)) {
    error = "a rank was killed by signal " + std::to_string(*p.exit_code - kShellSignalBase) +
            " (mpirun exit code " + std::to_string(*p.exit_code) + ")";
    return storage::RunStatus::kCrashed;
  }
  if (p.exit_code && *p.exit_code != 0) {
    error = "exited with code " + std::to_string(*p.exit_code);
    return storage::RunStatus::kFailed;
  }
  return std::nullopt;
}

// A run that failed where almost no space is left failed because of the disk: the next runs
// would fail the same way within milliseconds. Returns why, or "" when there is room.
constexpr std::uintmax_t kFullDiskBytes = std::uintmax_t{16} * 1024 * 1024;
std::string full_disk(const fs::path& dir) {
  std::error_code ec;
  const fs::space_info space = fs::space(dir, ec);
  if (ec || space.available >= kFullDiskBytes) return "";
  return "the disk of " + dir.string() + " is full (" + std::to_string(space.available / 1024) +
         " KiB free)";
}

}  // namespace

bool is_environment_failure(const std::string& error) {
  for (const char* sign : {"database or disk is full", "disk I/O error", "readonly database",
                           "unable to open database file", "No space left on device"}) {
    if (error.find(sign) != std::string::npos) return true;
  }
  return false;
}

namespace {

// The report of the attempt about to start: which run, which configuration, which attempt.
RunReport new_report(const RunTarget& target, const manifest::Configuration& config) {
  RunReport report;
  report.run_id = target.state.id;
  report.config = config.label;
  report.repetition = target.planned->repetition;
  report.position = target.planned->position;
  report.attempt = target.state.status == storage::RunStatus::kPending ? target.state.attempt
                                                                       : target.state.attempt + 1;
  return report;
}

// The run is marked running with its command, its data of earlier attempts cleared.
void mark_started(storage::Db& store, RunReport& report, const LaunchCommand& command) {
  storage::RunStart start;
  start.started_at = storage::utc_now_iso8601();
  start.command_json = argv_json(command.argv);
  start.launcher = command.launcher;
  start.binding = command.binding;
  storage::Transaction tx(store);
  storage::clear_run_data(store, report.run_id);
  report.attempt = storage::mark_running(store, report.run_id, start);
  tx.commit();
}

// The attempt's folder, emptied, with the resolved configuration the workload reads. Throws
// saying what could not be made.
void prepare_folder(const fs::path& dir, const fs::path& config_path, const manifest::Plan& plan,
                    const manifest::PlannedRun& planned) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
  write_text(config_path, manifest::run_config_json(plan, planned));
}

// The run failed before anything was launched (its folder could not be prepared): a failure
// of the environment, not of the run.
RunReport failed_to_prepare(storage::Db& store, RunReport report, const std::string& error) {
  storage::RunFinish finish;
  finish.status = storage::RunStatus::kFailed;
  finish.error = error;
  finish.finished_at = storage::utc_now_iso8601();
  storage::finish_run(store, report.run_id, finish);
  report.status = finish.status;
  report.error = finish.error;
  report.environment_error = true;
  return report;
}

// What the process left that every outcome stores.
storage::RunFinish finish_of(const ProcessResult& process) {
  storage::RunFinish finish;
  finish.finished_at = storage::utc_now_iso8601();
  finish.wall_s = process.wall_s;
  finish.exit_code = process.exit_code;
  finish.signal = process.signal;
  finish.stdout_tail = process.stdout_tail;
  finish.stderr_tail = process.stderr_tail;
  return finish;
}

// A process that did not exit 0 (`failure`, classify's): stored as it failed; a failure where
// the disk is full says so and counts as the environment's.
RunReport process_failed(storage::Db& store, RunReport report, storage::RunFinish finish,
                         storage::RunStatus failure, const std::string& error, bool started,
                         const fs::path& dir) {
  finish.status = failure;
  finish.error = error;
  storage::finish_run(store, report.run_id, finish);
  report.status = failure;
  report.error = error;
  report.environment_error = !started;
  if (failure == storage::RunStatus::kFailed || failure == storage::RunStatus::kCrashed) {
    if (const std::string full = full_disk(dir); !full.empty()) {
      report.error += "; " + full;
      report.environment_error = true;
      storage::set_run_error(store, report.run_id, report.error);
    }
  }
  return report;
}

// The run file recorded in the store (step times, median); the folder removed when it is in.
RunReport recorded(RunReport report, const RecordOutcome& ingest, const fs::path& dir,
                   bool keep_run_files) {
  report.warning = ingest.warning;
  report.status = ingest.ok ? storage::RunStatus::kOk : storage::RunStatus::kFailed;
  report.error = ingest.error;
  report.median_ms = ingest.median_ms;
  report.environment_error = is_environment_failure(ingest.error);
  if (!ingest.ok && !report.environment_error) {
    if (const std::string full = full_disk(dir); !full.empty()) {
      report.error += "; " + full;
      report.environment_error = true;
    }
  }
  std::error_code ec;
  if (ingest.ok && !keep_run_files) fs::remove_all(dir, ec);
  return report;
}

}  // namespace

RunReport run_one(storage::Db& store, const RunTarget& target, const ExecuteOptions& options,
                  const std::string& work_dir, const std::function<void(double)>& tick) {
  const manifest::Plan& plan = *target.plan;
  const manifest::PlannedRun& planned = *target.planned;
  const manifest::Configuration& config =
      plan.configs.at(static_cast<std::size_t>(planned.config_index));
  RunReport report = new_report(target, config);

  // One folder per attempt: a launcher orphaned by a killed orchestrator can never write
  // into the folder of the attempt that replaces it.
  const fs::path dir =
      fs::path(work_dir) / (std::to_string(report.run_id) + "." + std::to_string(report.attempt));
  const fs::path config_path = dir / "config.json";
  const fs::path run_file = dir / "run.db";
  const LaunchCommand command =
      build_launch_command(config, config_path.string(), run_file.string(), options.launch);
  mark_started(store, report, command);
  try {
    prepare_folder(dir, config_path, plan, planned);
  } catch (const std::exception& e) {
    return failed_to_prepare(store, report, e.what());
  }

  ProcessSpec spec;
  spec.argv = command.argv;
  spec.env = command.env;
  spec.timeout_s = plan.settings.timeout_s;
  spec.grace_s = options.grace_s;
  const MachineSample before = sample_machine();
  const ProcessResult process = run_process(spec, tick);
  const MachineSample after = sample_machine();
  const storage::RunFinish finish = finish_of(process);
  report.wall_s = process.wall_s;
  report.stderr_tail = process.stderr_tail;

  std::string error;
  if (const std::optional<storage::RunStatus> failure =
          classify(process, plan.settings.timeout_s, error)) {
    return process_failed(store, report, finish, *failure, error, process.started, dir);
  }
  const RecordOutcome ingest =
      record_run(store, report.run_id, run_file.string(), finish, plan.settings.warmup_steps,
                 launch_provenance(command, options.launch));
  if (ingest.ok) record_contention(store, report.run_id, before, after, process);
  return recorded(report, ingest, dir, options.keep_run_files);
}

}  // namespace culprit::launch::detail
