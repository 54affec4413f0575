#include "culprit/launch/import_run.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>

#include "culprit/common/json.hpp"
#include "culprit/common/sha256.hpp"
#include "culprit/common/text.hpp"
#include "culprit/errors.hpp"
#include "culprit/launch/interrupt.hpp"
#include "culprit/launch/record_run.hpp"
#include "culprit/storage/job_setup.hpp"
#include "culprit/storage/queries.hpp"
#include "culprit/storage/records.hpp"
#include "culprit/storage/store.hpp"
#include "runfile/meta_keys.hpp"

namespace culprit::launch {
namespace {

// Ctrl-C / SIGTERM / SIGHUP while importing: stop with nothing stored, exit 128 + signal.
void stop_if_interrupted(const std::string& when) {
  if (const int signal = interrupt_signal()) {
    throw Interrupted(signal, "interrupted by " + signal_name(signal) + " " + when +
                                  ": nothing was stored; run the import again");
  }
}

importers::ImportedRun read_traces(const std::vector<std::string>& paths,
                                   const importers::ImportOptions& options) {
  try {
    importers::ImportedRun run = importers::import_traces(paths, options);
    stop_if_interrupted("while reading the traces");
    return run;
  } catch (const Interrupted&) {
    throw;
  } catch (...) {
    stop_if_interrupted("while reading the traces");  // a read cut short by the signal
    throw;
  }
}

// The store file (and its WAL files) of a store that held no run before this import, removed
// again when the import fails: a refused import leaves no store behind.
void remove_created_store(const std::string& db_path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db_path + suffix, ec);
}

// One capture stored twice in an experiment would be two samples of one measurement: compare's
// interval would narrow on a repetition that measured nothing new.
void refuse_second_copy(storage::Db& store, std::int64_t experiment_id,
                        const ImportedRunRecord& r) {
  const auto digest =
      std::find_if(r.contents->meta.begin(), r.contents->meta.end(),
                   [](const auto& kv) { return kv.first == runfile::meta::kStepsDigest; });
  if (digest == r.contents->meta.end()) return;
  const std::optional<storage::RunSummary> same = storage::find_ok_run_by_meta(
      store, experiment_id, runfile::meta::kStepsDigest, digest->second);
  if (!same) return;
  throw UsageError("these traces are the capture already stored as run " +
                   std::to_string(same->id) + " (experiment '" + same->experiment +
                   "', configuration '" + same->config + "', repetition " +
                   std::to_string(same->repetition) +
                   "): the same steps to the nanosecond on every rank. Stored again it would "
                   "count as a second sample of one measurement; import another capture, or "
                   "this one under another --experiment");
}

// The runs of a configuration are repetitions of one job setup (storage::JobSetup).
void refuse_other_job(const storage::ConfigurationRecord& stored,
                      const storage::ConfigurationRecord& imported, const ImportedRunRecord& r) {
  const storage::JobSetup held = storage::job_setup(stored), these = storage::job_setup(imported);
  if (held == these) return;
  throw UsageError("configuration '" + r.label + "' of experiment '" + r.experiment +
                   "' holds runs of " + storage::describe(held) + "; these traces are " +
                   storage::describe(these) +
                   ": the runs of one configuration are repetitions of one job setup. Import them "
                   "under another --label (compare then sets the two side by side)");
}

std::int64_t ensure_import_experiment(storage::Db& store, const ImportedRunRecord& r) {
  if (auto existing = storage::find_experiment(store, r.experiment)) {
    // An imported configuration among a sweep's would make every compare of the sweep refuse
    // (the environments differ beyond the varied factor), and no run can be taken out again.
    if (existing->manifest_hash != storage::kImportedManifestHash) {
      throw UsageError("experiment '" + r.experiment + "' was run from the manifest " +
                       existing->manifest_path +
                       "; imported traces go in an experiment of their own: pick another "
                       "--experiment");
    }
    refuse_second_copy(store, existing->id, r);
    return existing->id;
  }
  storage::ExperimentRecord e;
  e.name = r.experiment;
  e.manifest_path = "(culprit import)";
  e.manifest_text = "";
  e.manifest_hash = storage::kImportedManifestHash;
  return storage::insert_experiment(store, e);
}

struct ImportConfiguration {
  std::int64_t id = 0;
  bool baseline = false;
  std::string baseline_was;  // the baseline this import's label took over from ("": none)
};

// The configuration of the record's label, created when absent. The documented rule: the one
// labelled "baseline" is the experiment's baseline, else its first; a "baseline" imported after
// another label takes the baseline over from it.
ImportConfiguration ensure_import_configuration(storage::Db& store, std::int64_t experiment_id,
                                                const ImportedRunRecord& r) {
  storage::ConfigurationRecord c;
  c.label = r.label;
  c.factor = "import";
  c.level_json = Json(r.label).dump();
  c.version = r.label;
  c.backend = r.backend;
  c.ranks = r.ranks;
  c.command_json = r.command_json;
  c.resolved_json = r.resolved_json;
  c.config_hash = sha256_hex("culprit import:" + r.label);
  const std::vector<storage::ConfigurationRecord> existing =
      storage::list_configurations(store, experiment_id);
  ImportConfiguration out;
  for (const storage::ConfigurationRecord& other : existing) {
    if (other.label == r.label) refuse_other_job(other, c, r);
    if (other.is_baseline && other.label != r.label && r.label == "baseline") {
      out.baseline_was = other.label;
    }
  }
  c.is_baseline = r.label == "baseline" || existing.empty();
  out.id = storage::ensure_configuration(store, experiment_id, c);
  out.baseline = c.is_baseline;
  for (const storage::ConfigurationRecord& other : existing) {
    if (other.id == out.id) out.baseline = other.is_baseline;
  }
  if (!out.baseline_was.empty()) {
    storage::make_baseline(store, experiment_id, out.id);
    out.baseline = true;
  }
  return out;
}

}  // namespace

StoredImport store_imported_run(storage::Db& store, const ImportedRunRecord& r) {
  StoredImport result;
  {
    storage::Transaction tx(store);
    result.experiment_id = ensure_import_experiment(store, r);
    const ImportConfiguration config = ensure_import_configuration(store, result.experiment_id, r);
    result.baseline = config.baseline;
    result.baseline_was = config.baseline_was;
    result.repetition = storage::max_repetition(store, config.id) + 1;
    const int position = storage::max_position(store, result.experiment_id) + 1;
    result.run_id = storage::ensure_run(store, result.experiment_id, {config.id, result.repetition},
                                        position, 0, "")
                        .id;
    storage::RunStart start;
    start.started_at = storage::utc_now_iso8601();
    start.command_json = r.command_json;
    start.launcher = "import";
    start.binding = "none";
    storage::mark_running(store, result.run_id, start);
    tx.commit();
  }
  storage::RunFinish finish;
  finish.finished_at = storage::utc_now_iso8601();
  finish.exit_code = 0;
  const RecordOutcome outcome = record_run(store, result.run_id, *r.contents, finish);
  result.median_ms = outcome.median_ms;
  if (!outcome.ok) result.error = outcome.error;
  return result;
}

namespace {

StoredImport store_run(storage::Db& store, const importers::ImportedRun& run,
                       const importers::ImportOptions& options,
                       const std::vector<std::string>& command) {
  ImportedRunRecord record;
  record.experiment = options.experiment;
  record.label = options.label;
  record.contents = &run.contents;
  record.resolved_json = run.contents.config_json;
  record.backend = run.summary.backend;
  record.ranks = run.summary.ranks;
  record.command_json = Json(Json::Array(command.begin(), command.end())).dump();
  return store_imported_run(store, record);
}

}  // namespace

ImportOutcome import_into_store(const std::string& db_path, const std::vector<std::string>& paths,
                                const importers::ImportOptions& options,
                                const std::vector<std::string>& command) {
  for (const auto& [option, name] :
       {std::pair{"--experiment", &options.experiment}, std::pair{"--label", &options.label}}) {
    if (name->empty()) throw UsageError(std::string(option) + " is empty: give it a name");
    if (const auto at = first_control_character(*name)) {
      throw UsageError(std::string(option) + ": the name holds a control character at offset " +
                       std::to_string(*at) +
                       "; remove tabs, line breaks and escape sequences from it");
    }
  }
  const InterruptScope interrupt_scope;
  importers::ImportedRun run = read_traces(paths, options);
  ImportOutcome outcome;
  outcome.summary = run.summary;
  auto store = storage::open_store(db_path);  // a store it created is removed if it fails
  // Under the writer lock: a store holding no run is one this import may remove again.
  const bool empty = storage::count_runs(*store) == 0;
  try {
    stop_if_interrupted("before storing the run");
    outcome.stored = store_run(*store, run, options, command);
    if (!outcome.stored.baseline_was.empty()) {
      outcome.summary.warnings.push_back(
          "experiment '" + options.experiment + "' now has 'baseline' as its baseline, not '" +
          outcome.stored.baseline_was +
          "' (the baseline only as its first import): compare, explain and report judge "
          "against 'baseline'");
    }
  } catch (...) {
    if (empty) {
      store.reset();
      remove_created_store(db_path);
    }
    throw;
  }
  return outcome;
}

}  // namespace culprit::launch
