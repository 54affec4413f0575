#pragma once
// Storing an imported run (culprit import): the run-file contents an importer built land in the
// store like a launched run's file, under an experiment and a configuration named by its label, so
// that attribute, explain, compare and export work on it unchanged.

#include <cstdint>
#include <optional>
#include <string>

#include <vector>

#include "culprit/importers/import.hpp"
#include "culprit/storage/db.hpp"

namespace culprit::launch {

struct ImportedRunRecord {
  std::string experiment;
  std::string label;
  const runfile::RunFileContents* contents = nullptr;  // the run, ingested from memory
  std::string resolved_json;                           // the run file's configuration echo
  std::string backend;
  int ranks = 1;
  std::string command_json = "[]";  // the `culprit import` argv
};

struct StoredImport {
  std::int64_t run_id = 0;
  std::int64_t experiment_id = 0;
  bool baseline = false;  // the configuration is the experiment's baseline
  // The label whose baseline an import labelled "baseline" took over ("": none).
  std::string baseline_was;
  int repetition = 0;
  std::optional<double> median_ms;
  std::string error;  // non-empty: the run was stored as failed
};

// The experiment is created when absent; the configuration `label` too (it is the baseline
// when labelled "baseline", taking it over from another label, or when it is the experiment's
// first); each import of one label is a new repetition. Throws culprit::UsageError when the
// experiment was run from a manifest, when an `ok` run of the experiment has the same run meta
// `steps_digest` as the contents (one capture stored twice would count as two samples), or when
// the configuration's job setup (storage::JobSetup: ranks, backend, the traced job's size)
// differs from the record's (its runs are repetitions of one job setup).
StoredImport store_imported_run(storage::Db& store, const ImportedRunRecord& record);

struct ImportOutcome {
  StoredImport stored;
  importers::ImportSummary summary;
};

// `culprit import`: reads every trace (nothing is opened or created in the store before all
// of them are read whole and mapped) and ingests the run-file contents they give straight from
// memory (storage::copy_run: the rows their run file would give, no file written).
// `command` is the argv recorded with the run (the `culprit import` command line).
ImportOutcome import_into_store(const std::string& db_path, const std::vector<std::string>& paths,
                                const importers::ImportOptions& options,
                                const std::vector<std::string>& command);

}  // namespace culprit::launch
