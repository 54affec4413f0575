#include "culprit/launch/record_run.hpp"
#include "runfile/meta_keys.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "culprit/analysis/step_times.hpp"
#include "culprit/storage/ingest.hpp"
#include "culprit/storage/run_data.hpp"

namespace culprit::launch {
namespace {

void record_failure(storage::Db& store, std::int64_t run_id, storage::RunFinish finish,
                    const std::string& error) {
  storage::Transaction tx(store);
  storage::clear_run_data(store, run_id);
  finish.status = storage::RunStatus::kFailed;
  finish.error = error;
  storage::finish_run(store, run_id, finish);
  tx.commit();
}

// The manifest's warm-up becomes the stored one; returns a warning when the run file's differs.
std::string apply_warmup(storage::Db& store, std::int64_t run_id, int warmup_steps) {
  const std::optional<std::string> found =
      storage::run_meta_value(store, run_id, runfile::meta::kWarmupSteps);
  const std::string wanted = std::to_string(warmup_steps);
  if (found && *found == wanted) return "";
  storage::set_run_meta(store, run_id, runfile::meta::kWarmupSteps, wanted);
  if (!found) {
    return "the run file has no meta.warmup_steps: the manifest's experiment.warmup_steps = " +
           wanted + " is used";
  }
  storage::set_run_meta(store, run_id, runfile::meta::kRunFileWarmupSteps, *found);
  return "the run file says meta.warmup_steps = '" + *found +
         "' but the manifest's experiment.warmup_steps = " + wanted + " decides";
}

// The run's events copied in by `copy(source)`, then everything derived from them, in one
// transaction. `source = prepare()` runs before it (SQLite cannot ATTACH inside a transaction)
// and lives until the transaction ends, as an attached run file must.
template <class Prepare, class Copy>
RecordOutcome record_with(storage::Db& store, std::int64_t run_id, storage::RunFinish finish,
                          std::optional<int> warmup_steps,
                          const std::vector<std::pair<std::string, std::string>>& launch_provenance,
                          Prepare&& prepare, Copy&& copy) {
  RecordOutcome outcome;
  try {
    auto source = prepare();
    storage::Transaction tx(store);
    outcome.events = copy(source);
    std::string warning;
    if (warmup_steps) warning = apply_warmup(store, run_id, *warmup_steps);
    storage::put_job_provenance(store, run_id, launch_provenance);
    const storage::RunData run =
        storage::load_run(store, run_id, storage::EventSelection::kStepsOnly);
    const auto steps = analysis::step_times(run);
    std::vector<storage::StepRow> rows;
    rows.reserve(steps.size());
    for (const auto& s : steps) {
      rows.push_back({s.step, s.time_ms, s.boundary_ns, run.rank_id(s.last_rank), s.warmup});
      if (!s.warmup) ++outcome.steps_measured;
    }
    storage::replace_steps(store, run_id, rows);
    const double median = analysis::median_step_ms(steps);
    finish.steps_measured = outcome.steps_measured;
    if (std::isnan(median)) {
      // The events stay for inspection; the run is not a sample.
      outcome.error = "no complete steady-state step: " + analysis::no_steady_step_reason(run);
      finish.status = storage::RunStatus::kFailed;
      finish.error = outcome.error;
    } else {
      outcome.ok = true;
      outcome.median_ms = median;
      finish.status = storage::RunStatus::kOk;
      finish.median_ms = median;
      finish.error.clear();
    }
    storage::finish_run(store, run_id, finish);
    tx.commit();
    outcome.warning = warning;
  } catch (const std::exception& e) {
    // The transaction rolled back: nothing of the run file landed.
    outcome = RecordOutcome{};
    outcome.error = e.what();
    record_failure(store, run_id, finish, outcome.error);
  }
  return outcome;
}

}  // namespace

RecordOutcome record_run(
    storage::Db& store, std::int64_t run_id, const std::string& run_file, storage::RunFinish finish,
    std::optional<int> warmup_steps,
    const std::vector<std::pair<std::string, std::string>>& launch_provenance) {
  return record_with(
      store, run_id, std::move(finish), warmup_steps, launch_provenance,
      [&] { return std::make_unique<storage::AttachedRunFile>(store, run_file); },
      [&](const auto& file) { return storage::copy_run_file(store, *file, run_id); });
}

RecordOutcome record_run(
    storage::Db& store, std::int64_t run_id, const runfile::RunFileContents& contents,
    storage::RunFinish finish, std::optional<int> warmup_steps,
    const std::vector<std::pair<std::string, std::string>>& launch_provenance) {
  return record_with(
      store, run_id, std::move(finish), warmup_steps, launch_provenance, [] { return 0; },
      [&](int) { return storage::copy_run_contents(store, contents, run_id); });
}

}  // namespace culprit::launch
