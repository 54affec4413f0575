#include "culprit/storage/merge.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "culprit/errors.hpp"
#include "culprit/storage/ingest.hpp"
#include "culprit/storage/job_setup.hpp"
#include "culprit/storage/records.hpp"
#include "culprit/storage/store.hpp"
#include "runfile/meta_keys.hpp"

namespace culprit::storage {
namespace {

namespace fs = std::filesystem;

// The runs columns after the run's slot (repetition, position).
constexpr const char* kRunColumns =
    "seed, status, attempt, started_at, finished_at, wall_s, exit_code, signal, median_ms, "
    "steps_measured, error, command_json, stdout_tail, stderr_tail, shard, launcher, binding";

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
    {"run_kernel_counters",
     "rank, phase, source, kernel, launch_id, section, metric, unit, value, text"},
    {"run_telemetry", "rank, gpu, host, source, field, time_ns, value"},
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

// Where a copied run goes: its configuration, and the repetition and position it takes
// (nullopt: the input's own).
struct Slot {
  std::int64_t config_id = 0;
  std::optional<std::int64_t> repetition, position;
};

std::int64_t copy_run(Db& out, std::int64_t src_run, std::int64_t experiment_id, const Slot& slot) {
  Statement insert(out, std::string("INSERT INTO runs (experiment_id, config_id, repetition, "
                                    "position, ") +
                            kRunColumns +
                            ") SELECT ?2, ?3, coalesce(?4, repetition), coalesce(?5, position), " +
                            kRunColumns + " FROM src.runs WHERE id = ?1");
  insert.bind(1, src_run).bind(2, experiment_id).bind(3, slot.config_id);
  insert.bind(4, slot.repetition).bind(5, slot.position).run();
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

// Configurations that merge into one (one experiment, one config_hash) are one configuration,
// and its runs repetitions of one job: an imported label of two stores may hold two jobs.
void require_one_job(const std::string& experiment, const ConfigurationRecord& first,
                     const std::string& first_store, const ConfigurationRecord& second,
                     const std::string& second_store, const std::string& outcome) {
  const JobSetup a = job_setup(first), b = job_setup(second);
  if (a == b) return;
  throw UsageError(
      "experiment '" + experiment + "', configuration '" + first.label + "': " + first_store +
      " holds runs of " + describe(a) + ", " + second_store + " of " + describe(b) +
      ": the runs of one configuration are repetitions of one job setup, and merged "
      "they would pool two jobs' step times as one sample; " +
      outcome + ". Import one job's traces again under another --label, then merge that store");
}

std::map<std::int64_t, std::int64_t> merge_configurations(Db& out, const std::string& input_path,
                                                          const std::string& experiment,
                                                          std::int64_t src_experiment,
                                                          std::int64_t out_experiment,
                                                          MergeStats& stats) {
  const std::vector<ConfigurationRecord> held = list_configurations(out, out_experiment, true);
  Statement read(out, std::string("SELECT ") + kConfigurationColumns +
                          " FROM src.configurations WHERE experiment_id = ?1");
  read.bind(1, src_experiment);
  std::map<std::int64_t, std::int64_t> ids;
  while (read.step()) {
    const ConfigurationRecord c = read_configuration(read);
    const auto same = std::find_if(held.begin(), held.end(), [&](const ConfigurationRecord& h) {
      return h.config_hash == c.config_hash;
    });
    if (same != held.end()) {
      require_one_job(experiment, *same, out.path(), c, input_path,
                      "nothing of " + input_path + " was merged");
    } else {
      ++stats.configurations_added;
    }
    ids[c.id] = ensure_configuration(out, out_experiment, c);
  }
  return ids;
}

// The output's copy of a source run: a planned run by its slot (configuration, repetition). An
// imported run's repetition is only the order its store received it in (another store's
// repetition 0 is another capture): its copy is the experiment's run of the same capture (run
// meta steps_digest, which `culprit import` stores once per experiment), or where either run
// has no digest (imported before it was kept), of the same import (start time, command line).
struct OutputCopy {
  std::int64_t id = 0;
  RunStatus status = RunStatus::kPending;
};

std::optional<OutputCopy> output_copy(Db& out, std::int64_t src_run, std::int64_t experiment_id,
                                      const Slot& slot, bool imported) {
  Statement find(out, imported
                          ? "SELECT r.id, r.status FROM runs r JOIN src.runs s ON s.id = ?1 "
                            "LEFT JOIN run_meta m ON m.run_id = r.id AND m.key = ?3 "
                            "LEFT JOIN src.run_meta n ON n.run_id = s.id AND n.key = ?3 "
                            "WHERE r.experiment_id = ?4 AND CASE WHEN m.value IS NULL OR "
                            "n.value IS NULL THEN r.started_at IS s.started_at AND "
                            "r.command_json = s.command_json ELSE m.value = n.value END "
                            "ORDER BY r.id LIMIT 1"
                          : "SELECT id, status FROM runs WHERE config_id = ?2 AND repetition = "
                            "(SELECT repetition FROM src.runs WHERE id = ?1)");
  find.bind(1, src_run).bind(2, slot.config_id);
  if (imported) find.bind(3, runfile::meta::kStepsDigest).bind(4, experiment_id);
  if (!find.step()) return std::nullopt;
  return OutputCopy{find.column_int(0), parse_run_status(find.column_view(1))};
}

void merge_runs(Db& out, std::int64_t src_experiment, std::int64_t out_experiment, bool imported,
                const std::map<std::int64_t, std::int64_t>& config_ids, MergeStats& stats) {
  struct SourceRun {
    std::int64_t id;
    std::int64_t config_id;
    RunStatus status;
  };
  std::vector<SourceRun> runs;
  {
    Statement read(out,
                   "SELECT id, config_id, status FROM src.runs WHERE experiment_id = ?1 ORDER BY "
                   "position, id");
    read.bind(1, src_experiment);
    while (read.step()) {
      runs.push_back(
          {read.column_int(0), read.column_int(1), parse_run_status(read.column_view(2))});
    }
  }
  Statement remove(out, "DELETE FROM runs WHERE id = ?1");
  for (const SourceRun& run : runs) {
    if (!is_finished(run.status)) continue;
    Slot slot{config_ids.at(run.config_id), std::nullopt, std::nullopt};
    const auto existing = output_copy(out, run.id, out_experiment, slot, imported);
    const bool replace = existing && existing->status != RunStatus::kOk &&
                         (run.status == RunStatus::kOk || !is_finished(existing->status));
    if (existing && !replace) {
      ++stats.runs_kept;
      continue;
    }
    if (replace) {
      clear_run_data(out, existing->id);  // events have no cascade (see the schema)
      remove.bind(1, existing->id).run();
    }
    if (imported) {  // the configuration's next repetition, last in the experiment's order
      slot.repetition = max_repetition(out, slot.config_id) + 1;
      slot.position = max_position(out, out_experiment) + 1;
    }
    copy_run(out, run.id, out_experiment, slot);
    ++(replace ? stats.runs_replaced : stats.runs_added);
  }
}

}  // namespace

void check_merge_inputs(const std::string& output_path, const std::vector<std::string>& inputs) {
  std::map<std::string, std::pair<std::string, std::string>> hash_of;  // name -> (hash, file)
  // (experiment, config_hash) -> the first store's configuration, and that store
  std::map<std::pair<std::string, std::string>, std::pair<ConfigurationRecord, std::string>>
      config_of;
  auto record = [&](Db& db) {
    Statement read(db, "SELECT id, name, manifest_hash FROM experiments");
    while (read.step()) {
      const std::string name = read.column_text(1), hash = read.column_text(2);
      const auto [it, fresh] = hash_of.try_emplace(name, hash, db.path());
      if (!fresh && it->second.first != hash) {
        throw UsageError("experiment '" + name + "' was run from different manifests in " +
                         it->second.second + " and " + db.path() + " (hash " +
                         it->second.first.substr(0, 12) + " vs " + hash.substr(0, 12) +
                         "): merge only shards of the same manifest; nothing was merged");
      }
      for (const ConfigurationRecord& c : list_configurations(db, read.column_int(0), true)) {
        const auto [first, new_one] = config_of.try_emplace({name, c.config_hash}, c, db.path());
        if (!new_one) {
          require_one_job(name, first->second.first, first->second.second, c, db.path(),
                          "nothing was merged");
        }
      }
    }
  };
  std::error_code ec;
  if (fs::is_regular_file(output_path, ec) && fs::file_size(output_path, ec) > 0) {
    record(*open_existing_store(output_path));
  }
  for (const std::string& input : inputs) {
    if (fs::is_directory(input)) {
      throw UsageError("shard database " + input +
                       " is a folder, not a database file: name the shard's .db; nothing was "
                       "merged");
    }
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
    const std::string name = experiment_by_id(output, out_id, "main")->name;
    const auto config_ids = merge_configurations(output, input_path, name, src_id, out_id, stats);
    const bool imported =
        experiment_by_id(output, out_id, "main")->manifest_hash == kImportedManifestHash;
    merge_runs(output, src_id, out_id, imported, config_ids, stats);
  }
  tx.commit();
  return stats;
}

}  // namespace culprit::storage
