#pragma once
// The rows the launcher writes: experiments, configurations and the life of each run
// (pending -> running -> ok | failed | timeout | crashed; running at startup -> interrupted).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "culprit/storage/db.hpp"
#include "culprit/storage/experiment_settings.hpp"

namespace culprit::storage {

// runs.status. The store keeps the text values (to_text); nothing else spells them.
enum class RunStatus { kPending, kRunning, kOk, kFailed, kTimeout, kCrashed, kInterrupted };
std::string_view to_text(RunStatus status);
// Throws std::runtime_error for a value the store's CHECK constraint would refuse.
RunStatus parse_run_status(std::string_view text);
// ok | failed | timeout | crashed: the run ended by itself (interrupted runs are rerun).
bool is_finished(RunStatus status);

// The manifest_hash of an experiment `culprit import` created: it has no manifest, and its runs'
// repetitions are the order its store received them in, not planned slots.
inline constexpr const char* kImportedManifestHash = "import";

struct ExperimentRecord {
  std::int64_t id = 0;
  std::string name;
  std::string manifest_path;
  std::string manifest_text;
  std::string manifest_hash;
  std::string forced_changes;
};

std::optional<ExperimentRecord> find_experiment(Db& store, const std::string& name);
// The most recently created experiment (created_at, then id); nullopt when there is none.
std::optional<ExperimentRecord> latest_experiment(Db& store);
// Experiment `id` of `schema` (an attached store's name, e.g. merge's "src").
std::optional<ExperimentRecord> experiment_by_id(Db& store, std::int64_t id,
                                                 const std::string& schema = "main");
std::int64_t insert_experiment(Db& store, const ExperimentRecord& experiment);
// Replaces the stored manifest (resume with --force) and appends `note` to forced_changes.
void force_manifest(Db& store, std::int64_t experiment_id, const ExperimentRecord& manifest,
                    const std::string& note);

struct ConfigurationRecord {
  std::int64_t id = 0;  // set when read from the store
  std::string label;
  std::string factor;
  std::string level_json = "null";
  bool is_baseline = false;
  std::string version;
  std::string backend;
  int ranks = 1;
  std::string command_json = "[]";
  std::string env_json = "{}";
  std::string resolved_json;
  std::string config_hash;
  // A --force resume whose manifest no longer has this configuration keeps its runs under its
  // label but marks it superseded: readers leave it out, and its label is free again.
  bool superseded = false;
};

// The id of the experiment's configuration with this config_hash, inserted when absent.
std::int64_t ensure_configuration(Db& store, std::int64_t experiment_id,
                                  const ConfigurationRecord& config);

// Makes `config_id` the experiment's one baseline configuration.
void make_baseline(Db& store, std::int64_t experiment_id, std::int64_t config_id);

// The configurations columns in the order read_configuration expects (merge reads them from an
// attached store with the same list).
extern const char* const kConfigurationColumns;
ConfigurationRecord read_configuration(const Statement& row);

// The experiment's configurations, the baseline first, then in insertion order; superseded ones
// only when `include_superseded`.
std::vector<ConfigurationRecord> list_configurations(Db& store, std::int64_t experiment_id,
                                                     bool include_superseded = false);

// Marks every current configuration of the experiment whose config_hash is not in
// `current_hashes` superseded, and makes a superseded one whose hash is there current again (a
// manifest changed back). Returns how many were superseded.
int supersede_configurations(Db& store, std::int64_t experiment_id,
                             const std::vector<std::string>& current_hashes);

struct RunKey {
  std::int64_t config_id = 0;
  int repetition = 0;
};

struct RunState {
  std::int64_t id = 0;
  RunStatus status = RunStatus::kPending;
  int attempt = 1;
  int position = 0;
};

// The run row for (configuration, repetition), inserted as `pending` when absent. An existing
// row keeps its status, position and seed: resuming never duplicates a run.
RunState ensure_run(Db& store, std::int64_t experiment_id, const RunKey& key, int position,
                    std::uint64_t seed, const std::string& shard);

// Marks every run of the experiment left `running` by a dead orchestrator as `interrupted`.
// Returns how many.
int mark_interrupted(Db& store, std::int64_t experiment_id);

struct RunStart {
  std::string started_at;  // ISO-8601 UTC
  std::string command_json;
  std::string launcher;  // "mpirun" | "srun" | "direct"
  std::string binding;   // e.g. "none", "core"
};

// Sets the run `running`; a run that ran before (not `pending`) gets attempt + 1.
// Returns the attempt number now recorded.
int mark_running(Db& store, std::int64_t run_id, const RunStart& start);

struct RunFinish {
  RunStatus status = RunStatus::kFailed;  // ok | failed | timeout | crashed | interrupted
  std::string finished_at;
  double wall_s = 0;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::optional<double> median_ms;
  std::optional<int> steps_measured;
  std::string error;
  std::string stdout_tail;
  std::string stderr_tail;
};

void finish_run(Db& store, std::int64_t run_id, const RunFinish& finish);
// Replaces the error recorded for a finished run (a cause found after finish_run).
void set_run_error(Db& store, std::int64_t run_id, const std::string& error);

// The run's status; nullopt when there is no such run.
std::optional<RunStatus> run_status(Db& store, std::int64_t run_id);

// run_meta of one run: the value of `key` (nullopt when absent), and its replacement.
std::optional<std::string> run_meta_value(Db& store, std::int64_t run_id, const std::string& key);
void set_run_meta(Db& store, std::int64_t run_id, const std::string& key, const std::string& value);
// Job-wide provenance (rank -1) of one run, replacing values of the same keys.
void put_job_provenance(Db& store, std::int64_t run_id,
                        const std::vector<std::pair<std::string, std::string>>& facts);

// Number of `ok` runs of a configuration, and the largest repetition / position stored.
int count_ok_runs(Db& store, std::int64_t config_id);
int max_repetition(Db& store, std::int64_t config_id);    // -1 when none
int max_position(Db& store, std::int64_t experiment_id);  // -1 when none

// Current UTC time as ISO-8601 with milliseconds ("2026-01-02T03:04:05.678Z").
std::string utc_now_iso8601();

}  // namespace culprit::storage
