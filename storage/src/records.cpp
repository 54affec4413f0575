#include "culprit/storage/records.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <stdexcept>

namespace culprit::storage {
namespace {

constexpr std::array<std::string_view, 7> kStatusText = {
    "pending", "running", "ok", "failed", "timeout", "crashed", "interrupted"};

constexpr const char* kExperimentSelect =
    "SELECT id, name, manifest_path, manifest_text, manifest_hash, forced_changes ";

std::optional<ExperimentRecord> read_experiment(Statement& stmt) {
  if (!stmt.step()) return std::nullopt;
  ExperimentRecord e;
  stmt.columns(e.id, e.name, e.manifest_path, e.manifest_text, e.manifest_hash, e.forced_changes);
  return e;
}

}  // namespace

std::string_view to_text(RunStatus status) {
  return kStatusText.at(static_cast<std::size_t>(status));
}

RunStatus parse_run_status(std::string_view text) {
  for (std::size_t i = 0; i < kStatusText.size(); ++i) {
    if (kStatusText[i] == text) return static_cast<RunStatus>(i);
  }
  throw std::runtime_error("unknown run status '" + std::string(text) + "' in the store");
}

bool is_finished(RunStatus status) {
  return status == RunStatus::kOk || status == RunStatus::kFailed ||
         status == RunStatus::kTimeout || status == RunStatus::kCrashed;
}

std::string utc_now_iso8601() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[96];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(millis));
  return text;
}

std::optional<ExperimentRecord> find_experiment(Db& store, const std::string& name) {
  Statement stmt(store, std::string(kExperimentSelect) + "FROM experiments WHERE name = ?1");
  stmt.bind(1, name);
  return read_experiment(stmt);
}

std::optional<ExperimentRecord> latest_experiment(Db& store) {
  Statement stmt(store, std::string(kExperimentSelect) +
                            "FROM experiments ORDER BY created_at DESC, id DESC LIMIT 1");
  return read_experiment(stmt);
}

std::optional<ExperimentRecord> experiment_by_id(Db& store, std::int64_t id,
                                                 const std::string& schema) {
  Statement stmt(store, kExperimentSelect + ("FROM " + schema + ".experiments WHERE id = ?1"));
  stmt.bind(1, id);
  return read_experiment(stmt);
}

std::int64_t insert_experiment(Db& store, const ExperimentRecord& e) {
  Statement stmt(store,
                 "INSERT INTO experiments (name, manifest_path, manifest_text, manifest_hash, "
                 "created_at, forced_changes) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  stmt.bind_all(e.name, e.manifest_path, e.manifest_text, e.manifest_hash, utc_now_iso8601(),
                e.forced_changes);
  stmt.run();
  return store.last_insert_id();
}

void force_manifest(Db& store, std::int64_t experiment_id, const ExperimentRecord& manifest,
                    const std::string& note) {
  Statement stmt(store,
                 "UPDATE experiments SET manifest_path = ?2, manifest_text = ?3, "
                 "manifest_hash = ?4, forced_changes = forced_changes || ?5 WHERE id = ?1");
  stmt.bind_all(experiment_id, manifest.manifest_path, manifest.manifest_text,
                manifest.manifest_hash, note + "\n");
  stmt.run();
}

std::int64_t ensure_configuration(Db& store, std::int64_t experiment_id,
                                  const ConfigurationRecord& c) {
  Statement find(store,
                 "SELECT id FROM configurations WHERE experiment_id = ?1 AND config_hash = ?2");
  find.bind(1, experiment_id).bind(2, c.config_hash);
  if (find.step()) return find.column_int(0);
  Statement insert(store,
                   "INSERT INTO configurations (experiment_id, label, factor, level_json, "
                   "is_baseline, version, backend, ranks, command_json, env_json, resolved_json, "
                   "config_hash, superseded) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  insert.bind_all(experiment_id, c.label, c.factor, c.level_json, c.is_baseline ? 1 : 0, c.version,
                  c.backend, c.ranks, c.command_json, c.env_json, c.resolved_json, c.config_hash,
                  c.superseded ? 1 : 0);
  insert.run();
  return store.last_insert_id();
}

void make_baseline(Db& store, std::int64_t experiment_id, std::int64_t config_id) {
  Statement update(store,
                   "UPDATE configurations SET is_baseline = (id = ?2) WHERE experiment_id = ?1");
  update.bind(1, experiment_id).bind(2, config_id);
  update.run();
}

const char* const kConfigurationColumns =
    "id, label, factor, level_json, is_baseline, version, backend, ranks, command_json, "
    "env_json, resolved_json, config_hash, superseded";

ConfigurationRecord read_configuration(const Statement& row) {
  ConfigurationRecord c;
  row.columns(c.id, c.label, c.factor, c.level_json, c.is_baseline, c.version, c.backend, c.ranks,
              c.command_json, c.env_json, c.resolved_json, c.config_hash, c.superseded);
  return c;
}

std::vector<ConfigurationRecord> list_configurations(Db& store, std::int64_t experiment_id,
                                                     bool include_superseded) {
  Statement stmt(store, std::string("SELECT ") + kConfigurationColumns +
                            " FROM configurations WHERE experiment_id = ?1 AND "
                            "(?2 OR superseded = 0) ORDER BY is_baseline DESC, id");
  stmt.bind(1, experiment_id).bind(2, include_superseded ? 1 : 0);
  std::vector<ConfigurationRecord> configs;
  while (stmt.step()) configs.push_back(read_configuration(stmt));
  return configs;
}

int supersede_configurations(Db& store, std::int64_t experiment_id,
                             const std::vector<std::string>& current_hashes) {
  Statement mark(store, "UPDATE configurations SET superseded = ?2 WHERE id = ?1");
  const auto current = [&](const ConfigurationRecord& c) {
    for (const std::string& hash : current_hashes) {
      if (hash == c.config_hash) return true;
    }
    return false;
  };
  const std::vector<ConfigurationRecord> all = list_configurations(store, experiment_id, true);
  int count = 0;
  for (const ConfigurationRecord& c : all) {  // first free the labels of the stale ones
    if (c.superseded || current(c)) continue;
    mark.bind(1, c.id).bind(2, 1).run();
    ++count;
  }
  for (const ConfigurationRecord& c : all) {  // then a manifest changed back revives its own
    if (c.superseded && current(c)) mark.bind(1, c.id).bind(2, 0).run();
  }
  return count;
}

RunState ensure_run(Db& store, std::int64_t experiment_id, const RunKey& key, int position,
                    std::uint64_t seed, const std::string& shard) {
  Statement find(store,
                 "SELECT id, status, attempt, position FROM runs "
                 "WHERE config_id = ?1 AND repetition = ?2");
  find.bind(1, key.config_id).bind(2, key.repetition);
  if (find.step()) {
    return {find.column_int(0), parse_run_status(find.column_view(1)),
            static_cast<int>(find.column_int(2)), static_cast<int>(find.column_int(3))};
  }
  Statement insert(store,
                   "INSERT INTO runs (experiment_id, config_id, repetition, position, seed, "
                   "status, shard) VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6)");
  // SQLite integers are signed 64-bit; the seed's bits are kept as they are.
  insert.bind_all(experiment_id, key.config_id, key.repetition, position,
                  static_cast<std::int64_t>(seed), shard);
  insert.run();
  return {store.last_insert_id(), RunStatus::kPending, 1, position};
}

int mark_interrupted(Db& store, std::int64_t experiment_id) {
  Statement stmt(store,
                 "UPDATE runs SET status = 'interrupted', error = 'the orchestrator stopped "
                 "while this run was in flight' WHERE experiment_id = ?1 AND status = 'running'");
  stmt.bind(1, experiment_id).run();
  return store.changes();
}

int mark_running(Db& store, std::int64_t run_id, const RunStart& start) {
  Statement stmt(store,
                 "UPDATE runs SET attempt = attempt + (status <> 'pending'), status = 'running', "
                 "started_at = ?2, finished_at = NULL, wall_s = NULL, exit_code = NULL, "
                 "signal = NULL, median_ms = NULL, steps_measured = NULL, error = '', "
                 "command_json = ?3, launcher = ?4, binding = ?5, stdout_tail = '', "
                 "stderr_tail = '' WHERE id = ?1 RETURNING attempt");
  stmt.bind_all(run_id, start.started_at, start.command_json, start.launcher, start.binding);
  if (!stmt.step()) store.fail("run " + std::to_string(run_id) + " vanished");
  const int attempt = static_cast<int>(stmt.column_int(0));
  stmt.reset();
  return attempt;
}

void finish_run(Db& store, std::int64_t run_id, const RunFinish& f) {
  Statement stmt(store,
                 "UPDATE runs SET status = ?2, finished_at = ?3, wall_s = ?4, exit_code = ?5, "
                 "signal = ?6, median_ms = ?7, steps_measured = ?8, error = ?9, "
                 "stdout_tail = ?10, stderr_tail = ?11 WHERE id = ?1");
  stmt.bind_all(run_id, to_text(f.status), f.finished_at, f.wall_s, f.exit_code, f.signal,
                f.median_ms, f.steps_measured, f.error, f.stdout_tail, f.stderr_tail);
  stmt.run();
}

void set_run_error(Db& store, std::int64_t run_id, const std::string& error) {
  Statement stmt(store, "UPDATE runs SET error = ?2 WHERE id = ?1");
  stmt.bind(1, run_id).bind(2, error).run();
}

std::optional<RunStatus> run_status(Db& store, std::int64_t run_id) {
  Statement stmt(store, "SELECT status FROM runs WHERE id = ?1");
  stmt.bind(1, run_id);
  if (!stmt.step()) return std::nullopt;
  return parse_run_status(stmt.column_view(0));
}

std::optional<std::string> run_meta_value(Db& store, std::int64_t run_id, const std::string& key) {
  Statement stmt(store, "SELECT value FROM run_meta WHERE run_id = ?1 AND key = ?2");
  stmt.bind(1, run_id).bind(2, key);
  if (!stmt.step()) return std::nullopt;
  return stmt.column_text(0);
}

void set_run_meta(Db& store, std::int64_t run_id, const std::string& key,
                  const std::string& value) {
  Statement stmt(store, "INSERT OR REPLACE INTO run_meta (run_id, key, value) VALUES (?1, ?2, ?3)");
  stmt.bind(1, run_id).bind(2, key).bind(3, value).run();
}

void put_job_provenance(Db& store, std::int64_t run_id,
                        const std::vector<std::pair<std::string, std::string>>& facts) {
  Statement stmt(store,
                 "INSERT OR REPLACE INTO provenance (run_id, rank, key, value) "
                 "VALUES (?1, -1, ?2, ?3)");
  for (const auto& [key, value] : facts) stmt.bind(1, run_id).bind(2, key).bind(3, value).run();
}

int count_ok_runs(Db& store, std::int64_t config_id) {
  Statement stmt(store, "SELECT count(*) FROM runs WHERE config_id = ?1 AND status = 'ok'");
  stmt.bind(1, config_id);
  stmt.step();
  return static_cast<int>(stmt.column_int(0));
}

int max_repetition(Db& store, std::int64_t config_id) {
  Statement stmt(store, "SELECT coalesce(max(repetition), -1) FROM runs WHERE config_id = ?1");
  stmt.bind(1, config_id);
  stmt.step();
  return static_cast<int>(stmt.column_int(0));
}

int max_position(Db& store, std::int64_t experiment_id) {
  Statement stmt(store, "SELECT coalesce(max(position), -1) FROM runs WHERE experiment_id = ?1");
  stmt.bind(1, experiment_id);
  stmt.step();
  return static_cast<int>(stmt.column_int(0));
}

}  // namespace culprit::storage
