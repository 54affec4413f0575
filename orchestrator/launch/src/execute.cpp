#include "culprit/launch/execute.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include <unistd.h>

#include "culprit/common/json.hpp"
#include "culprit/errors.hpp"
#include "culprit/launch/interrupt.hpp"
#include "culprit/launch/preflight.hpp"
#include "culprit/launch/process.hpp"
#include "culprit/manifest/planner.hpp"
#include "culprit/storage/records.hpp"
#include "culprit/storage/store.hpp"
#include "run_one.hpp"
#include "settings_record.hpp"

namespace culprit::launch {
namespace {

using Clock = std::chrono::steady_clock;

storage::ConfigurationRecord to_record(const manifest::Configuration& c) {
  storage::ConfigurationRecord r;
  r.label = c.label;
  r.factor = c.factor;
  r.level_json = c.level_json.empty() ? "null" : c.level_json;
  r.is_baseline = c.is_baseline;
  r.version = c.version;
  r.backend = c.backend;
  r.ranks = c.ranks;
  Json::Array command;
  for (const auto& arg : c.command) command.emplace_back(arg);
  r.command_json = Json(command).dump();
  Json::Object env;
  for (const auto& [key, value] : c.env) env.emplace(key, Json(value));
  r.env_json = Json(env).dump();
  r.resolved_json = c.resolved_json;
  r.config_hash = c.config_hash;
  return r;
}

// A configuration the changed manifest no longer has keeps its runs but is marked superseded,
// so that its label is free again and nothing is compared with it by accident.
void supersede_stale_configurations(storage::Db& store, std::int64_t experiment_id,
                                    const manifest::Plan& plan) {
  std::vector<std::string> current;
  for (const auto& c : plan.configs) current.push_back(c.config_hash);
  storage::supersede_configurations(store, experiment_id, current);
}

std::vector<std::int64_t> register_configurations(storage::Db& store, std::int64_t experiment_id,
                                                  const manifest::Plan& plan) {
  std::vector<std::int64_t> ids;
  for (const auto& c : plan.configs) {
    ids.push_back(storage::ensure_configuration(store, experiment_id, to_record(c)));
  }
  return ids;
}

struct Pending {
  const manifest::PlannedRun* planned;
  storage::RunState state;
};

bool should_run(const storage::RunState& state, bool retry_failed) {
  using storage::RunStatus;
  if (state.status == RunStatus::kOk) return false;
  if (state.status == RunStatus::kPending || state.status == RunStatus::kInterrupted ||
      state.status == RunStatus::kRunning) {
    return true;
  }
  return retry_failed;
}

// Removes the folder on scope exit when it is empty: `<db>.runs` was left behind, empty,
// by every sweep whose runs were all ingested. rmdir(2) removes only an empty folder: never a
// file in its place, nor the folders of failed runs kept for inspection.
struct RemoveIfEmpty {
  std::string folder;
  ~RemoveIfEmpty() {
    if (!folder.empty()) ::rmdir(folder.c_str());
  }
};

// The first run of each configuration in this sweep: when two configurations' first runs fail
// alike (failure_signature), the cause is what they share (interpreter, environment), not
// what they vary, and every further run would fail the same way.
class FirstFailures {
 public:
  // The label of another configuration whose first run failed as `report` did, or "".
  std::string same_as_another(const manifest::Plan& plan, int config_index,
                              const RunReport& report) {
    if (!first_.insert(config_index).second || report.status == storage::RunStatus::kOk ||
        report.status == storage::RunStatus::kInterrupted)
      return "";
    const std::string signature = failure_signature(report);
    for (const auto& [other, seen] : failures_) {
      if (seen == signature) return plan.configs.at(static_cast<std::size_t>(other)).label;
    }
    failures_.emplace(config_index, signature);
    return "";
  }

 private:
  std::set<int> first_;
  std::map<int, std::string> failures_;
};

std::string repeated_failure_reason(const std::string& other, const RunReport& report) {
  return "the first runs of '" + other + "' and '" + report.config + "' failed alike (" +
         report.error +
         "): the cause is what they share (command, interpreter, environment), so the rest "
         "stays pending; run " +
         std::to_string(report.run_id) +
         "'s stderr tail above says why (kept in the store: runs.stderr_tail)";
}

// The progress of one run of the sweep: its place, its times and the sweep's ETA (the mean wall
// time of the runs finished so far times the runs left).
class SweepClock {
 public:
  RunProgress start(const manifest::Plan& plan, const std::vector<Pending>& todo,
                    std::size_t i) const {
    const Pending& item = todo[i];
    RunProgress p;
    p.index = static_cast<int>(i) + 1;
    p.total = static_cast<int>(todo.size());
    p.run_id = item.state.id;
    p.config = plan.configs.at(static_cast<std::size_t>(item.planned->config_index)).label;
    p.repetition = item.planned->repetition;
    p.attempt = item.state.status == storage::RunStatus::kPending ? item.state.attempt
                                                                  : item.state.attempt + 1;
    update(p, 0);
    return p;
  }
  void update(RunProgress& p, double run_elapsed) const {
    p.elapsed_s = run_elapsed;
    p.sweep_elapsed_s = std::chrono::duration<double>(Clock::now() - sweep_start_).count();
    if (finished_ > 0) {
      const double mean = finished_wall_ / finished_;
      p.eta_s = std::max(0.0, mean - run_elapsed) + mean * static_cast<double>(p.total - p.index);
    }
  }
  void finished(RunProgress& p, double wall_s) {
    finished_wall_ += wall_s;
    ++finished_;
    update(p, wall_s);
  }

 private:
  Clock::time_point sweep_start_ = Clock::now();
  double finished_wall_ = 0;
  int finished_ = 0;
};

void stop_if_interrupted_before(const Pending& item) {
  if (const int signal = interrupt_signal()) {
    throw Interrupted(signal, "interrupted by " + signal_name(signal) + " before run " +
                                  std::to_string(item.state.id) +
                                  "; `culprit run` again resumes the sweep");
  }
}

// One run of the sweep. A store that cannot be written (full disk) stops the sweep: everything
// else stays as it is; the run in flight is rerun (interrupted) by the next `culprit run`.
RunReport run_item(storage::Db& store, const manifest::Plan& plan, const Pending& item,
                   const ExecuteOptions& options, const std::string& work_dir,
                   const std::function<void(double)>& tick) {
  const detail::RunTarget target{&plan, item.planned, item.state};
  try {
    return detail::run_one(store, target, options, work_dir, tick);
  } catch (const std::runtime_error& e) {
    if (!detail::is_environment_failure(e.what())) throw;
    throw RunError(std::string(e.what()) + ": the sweep stopped at run " +
                   std::to_string(item.state.id) +
                   "; the store holds every run finished before it. Free space, then `culprit "
                   "run` again resumes");
  }
}

// After a run (the last of `result.runs`): throws when culprit was interrupted; true when the
// sweep stops here (an environment error, two configurations failing alike, --fail-fast), with
// result.stopped_early and stop_reason set when runs were left.
bool stop_after(const manifest::Plan& plan, const Pending& item, bool last,
                const ExecuteOptions& options, FirstFailures& first_failures,
                ExecuteResult& result) {
  const RunReport& report = result.runs.back();
  const bool ok = report.status == storage::RunStatus::kOk;
  const std::string run = std::to_string(report.run_id);
  if (const int signal = interrupt_signal()) {
    throw Interrupted(signal, "interrupted by " + signal_name(signal) + ": run " + run +
                                  " is recorded as interrupted and the rest stays pending; "
                                  "`culprit run` again resumes the sweep");
  }
  if (!ok && report.environment_error) {
    result.stopped_early = !last;
    result.stop_reason = "environment error in run " + run + ": " + report.error;
    return true;
  }
  if (const std::string other =
          first_failures.same_as_another(plan, item.planned->config_index, report);
      !other.empty()) {
    result.stopped_early = !last;
    if (result.stopped_early) result.stop_reason = repeated_failure_reason(other, report);
    return true;
  }
  if (!ok && options.fail_fast) {
    result.stopped_early = !last;
    if (result.stopped_early) result.stop_reason = "--fail-fast";
    return true;
  }
  return false;
}

// Runs `todo` in order, reporting progress; appends reports to `result`.
void run_all(storage::Db& store, const manifest::Plan& plan, const std::vector<Pending>& todo,
             const ExecuteOptions& options, ProgressSink* progress, ExecuteResult& result) {
  const std::string work_dir =
      options.work_dir.empty() ? storage::store_folder(store.path(), storage::StoreFolder::kRuns)
                               : options.work_dir;
  const RemoveIfEmpty tidy{options.work_dir.empty() ? work_dir : std::string()};
  SweepClock clock;
  const InterruptScope interrupt_scope;
  FirstFailures first_failures;
  for (std::size_t i = 0; i < todo.size(); ++i) {
    stop_if_interrupted_before(todo[i]);
    RunProgress p = clock.start(plan, todo, i);
    if (progress) progress->on_run_start(p);
    RunReport report = run_item(store, plan, todo[i], options, work_dir, [&](double elapsed) {
      clock.update(p, elapsed);
      if (progress) progress->on_run_tick(p);
    });
    clock.finished(p, report.wall_s);
    if (progress) progress->on_run_end(p, report);
    result.runs.push_back(std::move(report));
    if (stop_after(plan, todo[i], i + 1 == todo.size(), options, first_failures, result)) return;
  }
}

int count_status(storage::Db& store, const std::vector<std::int64_t>& run_ids,
                 storage::RunStatus status, bool equal) {
  int count = 0;
  for (std::int64_t id : run_ids) {
    const std::optional<storage::RunStatus> found = storage::run_status(store, id);
    if (found ? (*found == status) == equal : !equal) ++count;
  }
  return count;
}

int count_not_ok(storage::Db& store, const std::vector<std::int64_t>& run_ids) {
  return count_status(store, run_ids, storage::RunStatus::kOk, false);
}

// The configurations `todo` runs, each once, in order of first appearance.
std::vector<int> configs_of(const std::vector<Pending>& todo) {
  std::vector<int> configs;
  for (const Pending& item : todo) {
    if (std::find(configs.begin(), configs.end(), item.planned->config_index) == configs.end())
      configs.push_back(item.planned->config_index);
  }
  return configs;
}

// The configurations of the shard's planned runs.
std::vector<int> shard_configs(const manifest::Plan& plan, const Shard& shard) {
  std::vector<int> configs;
  for (const auto& run : plan.runs) {
    if (shard.contains(run.position) &&
        std::find(configs.begin(), configs.end(), run.config_index) == configs.end())
      configs.push_back(run.config_index);
  }
  std::sort(configs.begin(), configs.end());  // the baseline first, as the manifest lists them
  return configs;
}

void check_commands(const manifest::Plan& plan, const std::vector<int>& configs,
                    const LaunchEnvironment& env, ProgressSink* progress) {
  const std::vector<std::string> lines = preflight(plan, configs, env);
  if (progress) progress->on_preflight(lines);
}

}  // namespace

std::string failure_signature(const RunReport& report) {
  // Process ids, job ids and timestamps differ between two runs failing alike.
  static const std::regex digits("[0-9]+");
  std::string tail = std::regex_replace(report.stderr_tail, digits, "#");
  if (tail.size() > 1024) tail = tail.substr(tail.size() - 1024);
  return std::string(storage::to_text(report.status)) + "\n" + report.error + "\n" + tail;
}

std::string Shard::text() const {
  return count == 1 ? std::string() : std::to_string(index) + "/" + std::to_string(count);
}

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  Shard shard;
  try {
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    std::size_t used = 0;
    shard.index = std::stoi(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("index");
    const std::string count = text.substr(slash + 1);
    shard.count = std::stoi(count, &used);
    if (used != count.size()) throw std::invalid_argument("count");
  } catch (const std::exception&) {
    throw UsageError("--shard " + text + ": expected I/N, e.g. --shard 1/4");
  }
  if (shard.count < 1 || shard.index < 1 || shard.index > shard.count) {
    throw UsageError("--shard " + text + ": need 1 <= I <= N");
  }
  return shard;
}

std::int64_t register_experiment(storage::Db& store, const manifest::Plan& plan, bool force) {
  const manifest::ExperimentSettings& s = plan.settings;
  storage::ExperimentRecord record;
  record.name = s.name;
  record.manifest_path = s.manifest_path;
  record.manifest_text = s.manifest_text;
  record.manifest_hash = s.manifest_hash;
  storage::Transaction tx(store);
  std::int64_t id = 0;
  if (auto existing = storage::find_experiment(store, s.name)) {
    id = existing->id;
    if (existing->manifest_hash != s.manifest_hash) {
      if (!force) {
        throw UsageError("experiment '" + s.name + "' in " + store.path() +
                         " was run from a different manifest (hash " +
                         existing->manifest_hash.substr(0, 12) + ", now " +
                         s.manifest_hash.substr(0, 12) + ", from " + s.manifest_path +
                         "): restore the manifest to resume, use another --db or experiment "
                         "name, or pass --force to continue with the change recorded");
      }
      storage::force_manifest(store, id, record,
                              storage::utc_now_iso8601() + " manifest " + existing->manifest_hash +
                                  " -> " + s.manifest_hash + " (" + s.manifest_path + ")");
      supersede_stale_configurations(store, id, plan);
    }
  } else {
    id = storage::insert_experiment(store, record);
  }
  // The settings it is judged by, as it runs now (a --force resume records the new ones).
  storage::put_experiment_settings(store, id, settings_record(plan));
  register_configurations(store, id, plan);
  tx.commit();
  return id;
}

ExecuteResult execute_plan(storage::Db& store, const manifest::Plan& plan,
                           const ExecuteOptions& options, ProgressSink* progress) {
  ExecuteResult result;
  // A new experiment (or a changed manifest) is checked before it is registered, so that the
  // fix of a command that cannot start is not a manifest change to --force.
  const auto existing = storage::find_experiment(store, plan.settings.name);
  const bool fresh = !existing || existing->manifest_hash != plan.settings.manifest_hash;
  if (fresh) check_commands(plan, shard_configs(plan, options.shard), options.launch, progress);
  result.experiment_id = register_experiment(store, plan, options.force);
  std::vector<Pending> todo;
  std::vector<std::int64_t> shard_runs;
  {
    storage::Transaction tx(store);
    result.interrupted = storage::mark_interrupted(store, result.experiment_id);
    const auto config_ids = register_configurations(store, result.experiment_id, plan);
    for (const auto& run : plan.runs) {
      if (!options.shard.contains(run.position)) continue;
      ++result.planned;
      const storage::RunKey key{config_ids.at(static_cast<std::size_t>(run.config_index)),
                                run.repetition};
      const auto state = storage::ensure_run(store, result.experiment_id, key, run.position,
                                             run.seed, options.shard.text());
      shard_runs.push_back(state.id);
      if (state.status == storage::RunStatus::kOk) ++result.already_ok;
      if (should_run(state, options.retry_failed)) todo.push_back({&run, state});
    }
    tx.commit();
  }
  if (!fresh) check_commands(plan, configs_of(todo), options.launch, progress);
  if (progress)
    progress->on_sweep_start(result.already_ok, static_cast<int>(todo.size()), result.interrupted);
  run_all(store, plan, todo, options, progress, result);
  result.not_ok = count_not_ok(store, shard_runs);
  result.pending = count_status(store, shard_runs, storage::RunStatus::kPending, true);
  return result;
}

ExecuteResult ensure_ok_runs(storage::Db& store, manifest::Plan& plan,
                             const std::vector<int>& configs, int ok_runs,
                             const ExecuteOptions& options, ProgressSink* progress) {
  ExecuteResult result;
  check_commands(plan, configs, options.launch, progress);
  result.experiment_id = register_experiment(store, plan, options.force);
  result.interrupted = storage::mark_interrupted(store, result.experiment_id);
  auto config_ids = register_configurations(store, result.experiment_id, plan);
  auto deficit = [&](int config_index) {
    const auto id = config_ids.at(static_cast<std::size_t>(config_index));
    return ok_runs - storage::count_ok_runs(store, id);
  };
  std::set<int> stuck;  // configurations whose last block brought no ok run
  while (true) {
    int blocks = 0;
    std::vector<int> needy;
    for (int c : configs) {
      const int d = deficit(c);
      if (d > 0 && !stuck.count(c)) {
        needy.push_back(c);
        blocks = std::max(blocks, d);
      }
    }
    if (needy.empty()) break;
    std::map<int, int> ok_before;
    for (int c : needy) ok_before[c] = ok_runs - deficit(c);
    const std::size_t first_new = plan.runs.size();
    manifest::append_blocks(plan, blocks, needy);
    std::vector<Pending> todo;
    std::map<int, int> executed;
    {
      storage::Transaction tx(store);
      for (std::size_t i = first_new; i < plan.runs.size(); ++i) {
        const auto& run = plan.runs[i];
        const storage::RunKey key{config_ids.at(static_cast<std::size_t>(run.config_index)),
                                  run.repetition};
        const auto state =
            storage::ensure_run(store, result.experiment_id, key, run.position, run.seed, "");
        ++result.planned;
        // Repetitions stored by an earlier session count as they are; they are not rerun.
        if (state.status == storage::RunStatus::kPending ||
            state.status == storage::RunStatus::kInterrupted) {
          todo.push_back({&run, state});
          ++executed[run.config_index];
        }
      }
      tx.commit();
    }
    run_all(store, plan, todo, options, progress, result);
    for (int c : needy) {
      if (executed[c] > 0 && ok_runs - deficit(c) == ok_before[c]) stuck.insert(c);
    }
    if (result.stopped_early) break;
  }
  for (int c : configs) result.not_ok += std::max(0, deficit(c));
  return result;
}

}  // namespace culprit::launch
