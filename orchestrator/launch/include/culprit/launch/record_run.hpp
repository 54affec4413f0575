#pragma once
// Recording a finished run in the store, the one way a run gets in: its run file (or contents
// built in memory) copied once (storage::copy_run), the step times folded from its step events
// as they are written (analysis::StepTimesBuilder) and the run's median, in one transaction.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "culprit/storage/db.hpp"
#include "culprit/storage/records.hpp"
#include "runfile/run_file.hpp"

namespace culprit::launch {

struct RecordOutcome {
  bool ok = false;
  std::string error;  // why the run is failed: bad/missing run file, no steady-state step
  std::optional<double> median_ms;
  int steps_measured = 0;
  std::int64_t events = 0;
  std::string warning;  // e.g. the run file's meta.warmup_steps disagreed with the manifest
};

// Ingests `run_file` for `run_id` and records `finish` (its status, median and error filled in
// from the outcome) in the same transaction: the run lands whole or not at all. A missing or
// bad run file leaves no event behind and records the run as failed.
// `warmup_steps` (the manifest's experiment.warmup_steps) decides which steps are warm-up: it
// is stored as the run's meta.warmup_steps; a run file that omits it or says otherwise gets a
// warning, its own value kept as meta.run_file_warmup_steps. nullopt: the run file decides.
// `launch_provenance` (launch_provenance()) is added to the run's provenance as whole-job
// (rank -1) entries.
RecordOutcome record_run(
    storage::Db& store, std::int64_t run_id, const std::string& run_file, storage::RunFinish finish,
    std::optional<int> warmup_steps = {},
    const std::vector<std::pair<std::string, std::string>>& launch_provenance = {});

// The same for run-file contents built in this process (culprit import): ingested without a
// file written and read back (storage::copy_run from memory), the same rows and outcome.
RecordOutcome record_run(
    storage::Db& store, std::int64_t run_id, const runfile::RunFileContents& contents,
    storage::RunFinish finish, std::optional<int> warmup_steps = {},
    const std::vector<std::pair<std::string, std::string>>& launch_provenance = {});

}  // namespace culprit::launch
