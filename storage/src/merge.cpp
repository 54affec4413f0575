#include "culprit/storage/merge.hpp"

#include <filesystem>
#include <map>
#include <vector>

#include "culprit/errors.hpp"
#include "culprit/storage/ingest.hpp"
#include "culprit/storage/records.hpp"
#include "culprit/storage/store.hpp"

namespace culprit::storage {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRunColumns =
    "repetition, position, seed, status, attempt, started_at, finished_at, wall_s, exit_code, "
    "signal, median_ms, steps_measured, error, command_json, stdout_tail, stderr_tail, shard, "
    "launcher, binding";

// Child tables of a run and their columns after run_id (events: their packs, below).
struct ChildTable {
  const char* name;
  const char* columns;
};
constexpr ChildTable kChildTables[] = {
    {"run_meta", "key, value"},
    {"run_config_echo", "json"},
    {"provenance", "rank, key, value"},
    {"clock_models",
     "rank, host, ref_ns, offset_ns, drift_ppm, uncertainty_ns, start_rtt_ns, end_rtt_ns, "
     "exchanges"},
    {"steps", "step, time_ms, boundary_ns, last_rank, warmup"},
    {"run_event_names", "id, name"},
};

class Attached {
 public:
  Attached(Db& db, const std::string& path) : db_(db) {
    Statement attach(db_, "ATTACH DATABASE ?1 AS src");
    attach.bind(1, path).run();
  }
  Attached(const Attached&) = delete;
  Attached& operator=(const Attached&) = delete;
  ~Attached() {
    try {
      db_.exec("DETACH DATABASE src");
    } catch (...) {  // best effort: the attachment ends with the connection anyway
    }
  }

 private:
  Db& db_;
};

std::int64_t copy_run(Db& out, std::int64_t src_run, std::int64_t experiment_id,
                      std::int64_t config_id) {
  Statement insert(out, std::string("INSERT INTO runs (experiment_id, config_id, ") + kRunColumns +
                            ") SELECT ?2, ?3, " + kRunColumns + " FROM src.runs WHERE id = ?1");
  insert.bind(1, src_run).bind(2, experiment_id).bind(3, config_id).run();
  const std::int64_t new_id = out.last_insert_id();
  for (const ChildTable& t : kChildTables) {
    Statement copy(out, std::string("INSERT INTO ") + t.name + " (run_id, " + t.columns +
                            ") SELECT ?2, " + t.columns + " FROM src." + t.name +
                            " WHERE run_id = ?1");
    copy.bind(1, src_run).bind(2, new_id).run();
  }
  Statement packs(out,
                  "INSERT INTO run_event_packs (run_id, rank, events, data) SELECT ?2, rank, "
                  "events, data FROM src.run_event_packs WHERE run_id = ?1 ORDER BY rank, id");
  packs.bind(1, src_run).bind(2, new_id).run();
  return new_id;
}

std::int64_t merge_experiment(Db& out, std::int64_t src_id, MergeStats& stats) {
  const ExperimentRecord e = experiment_by_id(out, src_id, "src").value();
  if (auto existing = find_experiment(out, e.name)) {
    if (existing->manifest_hash != e.manifest_hash) {
      throw UsageError("experiment '" + e.name + "' was run from different manifests in " +
                       out.path() + " and the input (hash " + existing->manifest_hash + " vs " +
                       e.manifest_hash + "): merge only shards of the same manifest");
    }
    return existing->id;
  }
  ++stats.experiments_added;
  const std::int64_t id = insert_experiment(out, e);
  if (auto settings = experiment_settings(out, src_id, "src")) {
    put_experiment_settings(out, id, *settings);
  }
  return id;
}

std::map<std::int64_t, std::int64_t> merge_configurations(Db& out, std::int64_t src_experiment,
                                                          std::int64_t out_experiment,
                                                          MergeStats& stats) {
  Statement read(out, std::string("SELECT ") + kConfigurationColumns +
                          " FROM src.configurations WHERE experiment_id = ?1");
  read.bind(1, src_experiment);
  std::map<std::int64_t, std::int64_t> ids;
  while (read.step()) {
    const ConfigurationRecord c = read_configuration(read);
    const auto before = out.query_int("SELECT count(*) FROM configurations").value_or(0);
    ids[c.id] = ensure_configuration(out, out_experiment, c);
    if (out.query_int("SELECT count(*) FROM configurations").value_or(0) != before) {
      ++stats.configurations_added;
    }
  }
  return ids;
}

void merge_runs(Db& out, std::int64_t src_experiment, std::int64_t out_experiment,
                const std::map<std::int64_t, std::int64_t>& config_ids, MergeStats& stats) {
  struct SourceRun {
    std::int64_t id;
    std::int64_t config_id;
    int repetition;
    RunStatus status;
  };
  std::vector<SourceRun> runs;
  {
    Statement read(out,
                   "SELECT id, config_id, repetition, status FROM src.runs "
                   "WHERE experiment_id = ?1 ORDER BY position, id");
    read.bind(1, src_experiment);
    while (read.step()) {
      runs.push_back({read.column_int(0), read.column_int(1), static_cast<int>(read.column_int(2)),
                      parse_run_status(read.column_view(3))});
    }
  }
  Statement find(out, "SELECT id, status FROM runs WHERE config_id = ?1 AND repetition = ?2");
  Statement remove(out, "DELETE FROM runs WHERE id = ?1");
  for (const SourceRun& run : runs) {
    if (!is_finished(run.status)) continue;
    const std::int64_t config_id = config_ids.at(run.config_id);
    find.bind(1, config_id).bind(2, run.repetition);
    if (!find.step()) {
      find.reset();
      copy_run(out, run.id, out_experiment, config_id);
      ++stats.runs_added;
      continue;
    }
    const std::int64_t existing_id = find.column_int(0);
    const RunStatus existing_status = parse_run_status(find.column_view(1));
    find.reset();
    const bool replace = existing_status != RunStatus::kOk &&
                         (run.status == RunStatus::kOk || !is_finished(existing_status));
    if (!replace) {
      ++stats.runs_kept;
      continue;
    }
    clear_run_data(out, existing_id);  // events have no cascade (see the schema)
    remove.bind(1, existing_id).run();
    copy_run(out, run.id, out_experiment, config_id);
    ++stats.runs_replaced;
  }
}

}  // namespace

void check_merge_inputs(const std::string& output_path, const std::vector<std::string>& inputs) {
  std::map<std::string, std::pair<std::string, std::string>> hash_of;  // name -> (hash, file)
  auto record = [&](Db& db) {
    Statement read(db, "SELECT name, manifest_hash FROM experiments");
    while (read.step()) {
      const std::string name = read.column_text(0), hash = read.column_text(1);
      const auto [it, fresh] = hash_of.try_emplace(name, hash, db.path());
      if (!fresh && it->second.first != hash) {
        throw UsageError("experiment '" + name + "' was run from different manifests in " +
                         it->second.second + " and " + db.path() + " (hash " +
                         it->second.first.substr(0, 12) + " vs " + hash.substr(0, 12) +
                         "): merge only shards of the same manifest; nothing was merged");
      }
    }
  };
  std::error_code ec;
  if (fs::is_regular_file(output_path, ec) && fs::file_size(output_path, ec) > 0) {
    record(*open_existing_store(output_path));
  }
  for (const std::string& input : inputs) {
    if (!fs::is_regular_file(input)) {
      throw UsageError("shard database " + input + " does not exist; nothing was merged");
    }
    if (fs::exists(output_path) && fs::equivalent(input, output_path)) {
      throw UsageError("cannot merge " + input + " into itself");
    }
    record(*open_existing_store(input));
  }
}

MergeStats merge_store(Db& output, const std::string& input_path) {
  if (!fs::is_regular_file(input_path)) {
    throw UsageError("shard database " + input_path + " does not exist");
  }
  if (fs::exists(output.path()) && fs::equivalent(input_path, output.path())) {
    throw UsageError("cannot merge " + input_path + " into itself");
  }
  {
    auto input = open_existing_store(input_path);  // migrates an older shard forward
  }
  Attached attached(output, input_path);
  const auto version = output.query_int("PRAGMA src.user_version").value_or(0);
  if (version != kStoreSchemaVersion) {
    throw UsageError(input_path + " is not a culprit store of schema version " +
                     std::to_string(kStoreSchemaVersion));
  }
  MergeStats stats;
  Transaction tx(output);
  std::vector<std::int64_t> experiments;
  {
    Statement read(output, "SELECT id FROM src.experiments ORDER BY id");
    while (read.step()) experiments.push_back(read.column_int(0));
  }
  for (std::int64_t src_id : experiments) {
    const std::int64_t out_id = merge_experiment(output, src_id, stats);
    const auto config_ids = merge_configurations(output, src_id, out_id, stats);
    merge_runs(output, src_id, out_id, config_ids, stats);
  }
  tx.commit();
  return stats;
}

}  // namespace culprit::storage
