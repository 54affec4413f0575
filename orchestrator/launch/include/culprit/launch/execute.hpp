#pragma once
// Executing a Plan against the results store: registers the experiment (guarded by the
// manifest hash), resumes where an earlier sweep stopped, runs each remaining run through its
// launcher, classifies failures and ingests each run file whole.

#include <cstdint>
#include <string>
#include <vector>

#include "culprit/launch/launch_command.hpp"
#include "culprit/launch/progress.hpp"
#include "culprit/manifest/plan.hpp"
#include "culprit/storage/db.hpp"

namespace culprit::launch {

// Shard I of N (1-based) runs the planned runs whose position % N == I - 1.
struct Shard {
  int index = 1;
  int count = 1;
  bool contains(int position) const { return position % count == index - 1; }
  std::string text() const;  // "" for 1/1, else "I/N"
};

// Parses "I/N" (1 <= I <= N). Throws culprit::UsageError.
Shard parse_shard(const std::string& text);

struct ExecuteOptions {
  std::string work_dir;  // run folders go here; default "<db>.runs"
  Shard shard;
  bool fail_fast = false;       // stop the sweep after the first run that is not ok
  bool keep_run_files = false;  // keep <work_dir>/<run id>.<attempt>/ after a successful ingest
  bool force = false;           // resume even though the manifest changed (recorded)
  bool retry_failed = false;    // also rerun runs that finished failed/timeout/crashed
  double grace_s = 5;           // SIGTERM .. SIGKILL at a timeout
  LaunchEnvironment launch;     // usually detect_launch_environment()
};

struct ExecuteResult {
  std::int64_t experiment_id = 0;
  int planned = 0;              // runs of the plan in this shard
  int already_ok = 0;           // found ok and not rerun
  int interrupted = 0;          // found in flight from a dead orchestrator, rerun
  int not_ok = 0;               // runs of this shard that are not ok at the end (incl. not reached)
  bool stopped_early = false;   // --fail-fast or an environment error stopped the sweep
  std::string stop_reason;      // why it stopped early ("" when it did not)
  int pending = 0;              // runs of this shard left pending (not reached)
  std::vector<RunReport> runs;  // the runs executed by this call, in order
  bool all_ok() const { return not_ok == 0; }
};

// What two failed runs share when they failed alike: status, error and the stderr tail with
// its numbers (pids, job ids, times) masked. Equal for runs of two configurations whose
// common command or environment is broken.
std::string failure_signature(const RunReport& report);

// Registers the plan's experiment and configurations and returns the experiment id.
// Throws culprit::UsageError when the store holds the experiment with another manifest hash
// and `force` is false; with `force` the change is recorded in experiments.forced_changes.
std::int64_t register_experiment(storage::Db& store, const manifest::Plan& plan, bool force);

// Runs every planned run of the shard that is not ok yet (see ExecuteOptions). Before the
// first run, checks that each command can start (preflight.hpp; culprit::UsageError naming
// it, nothing run; a new experiment is not even registered). An environment error during the
// sweep stops it (stop_reason), and so do the first runs of two configurations failing alike
// (failure_signature), the rest left pending.
// Throws launch::Interrupted (interrupt.hpp) after SIGINT/SIGTERM.
ExecuteResult execute_plan(storage::Db& store, const manifest::Plan& plan,
                           const ExecuteOptions& options, ProgressSink* progress = nullptr);

// Adaptive sampling and bisection: makes sure each configuration in `configs` (indexes into
// plan.configs; configurations added to the plan after the sweep are registered here) has at
// least `ok_runs` ok runs, appending balanced blocks of repetitions to `plan`
// (manifest::append_blocks) and running them. Stops early when a block produced no ok run
// for a configuration that needs more (it keeps failing); the result's not_ok says so.
ExecuteResult ensure_ok_runs(storage::Db& store, manifest::Plan& plan,
                             const std::vector<int>& configs, int ok_runs,
                             const ExecuteOptions& options, ProgressSink* progress = nullptr);

}  // namespace culprit::launch
