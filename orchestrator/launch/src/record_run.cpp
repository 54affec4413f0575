#include "culprit/launch/record_run.hpp"
#include "runfile/meta_keys.hpp"

#include <algorithm>
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

// The step times of the run being written, folded from its step events as the copy writes them.
class StepTimesObserver : public storage::IngestObserver {
 public:
  void clock_models(const std::vector<storage::ClockModel>& clocks) override {
    builder_.emplace(clocks);
  }
  void step_event(const runfile::EventRecord& e) override {
    if (!builder_) builder_.emplace(std::vector<storage::ClockModel>{});
    builder_->add(e.rank, e.step, e.begin_ns, e.end_ns);
    max_rank_ = std::max(max_rank_, e.rank);
  }
  // The ranks when the run's meta does not say (the step events' highest rank + 1, as
  // storage::load_run counts them).
  int ranks_seen() const { return max_rank_ + 1; }
  std::vector<analysis::StepTime> finish(const storage::RunCounts& counts) const {
    if (!builder_) return {};
    return builder_->finish(counts.ranks, counts.warmup_steps);
  }

 private:
  std::optional<analysis::StepTimesBuilder> builder_;
  int max_rank_ = -1;
};

// The step times, their rows and the run's outcome, in the transaction that copied the run.
void record_steps(storage::Db& store, std::int64_t run_id, const StepTimesObserver& observed,
                  storage::RunFinish& finish, RecordOutcome& outcome) {
  const auto steps =
      observed.finish(storage::load_run_counts(store, run_id, observed.ranks_seen()));
  std::vector<storage::StepRow> rows;
  rows.reserve(steps.size());
  for (const auto& s : steps) {
    rows.push_back({s.step, s.time_ms, s.boundary_ns, s.last_rank, s.warmup});
    if (!s.warmup) ++outcome.steps_measured;
  }
  storage::replace_steps(store, run_id, rows);
  const double median = analysis::median_step_ms(steps);
  finish.steps_measured = outcome.steps_measured;
  if (std::isnan(median)) {
    // The events stay for inspection; the run is not a sample. Only a failed run is loaded again,
    // for the words that say why.
    outcome.error = "no complete steady-state step: " +
                    analysis::no_steady_step_reason(
                        storage::load_run(store, run_id, storage::EventSelection::kStepsOnly));
    finish.status = storage::RunStatus::kFailed;
    finish.error = outcome.error;
  } else {
    outcome.ok = true;
    outcome.median_ms = median;
    finish.status = storage::RunStatus::kOk;
    finish.median_ms = median;
    finish.error.clear();
  }
}

// The one recording path: the run copied in once (storage::copy_run, the step times folded from
// its step events as they are written), then everything derived from it, in one transaction.
RecordOutcome record(storage::Db& store, std::int64_t run_id, storage::RunSource source,
                     storage::RunFinish finish, std::optional<int> warmup_steps,
                     const std::vector<std::pair<std::string, std::string>>& launch_provenance) {
  RecordOutcome outcome;
  try {
    storage::Transaction tx(store);
    StepTimesObserver observed;
    outcome.events = storage::copy_run(store, source, run_id, &observed);
    std::string warning;
    if (warmup_steps) warning = apply_warmup(store, run_id, *warmup_steps);
    storage::put_job_provenance(store, run_id, launch_provenance);
    record_steps(store, run_id, observed, finish, outcome);
    storage::finish_run(store, run_id, finish);
    tx.commit();
    outcome.warning = warning;
  } catch (const std::exception& e) {
    // The transaction rolled back: nothing of the run landed.
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
  std::unique_ptr<storage::AttachedRunFile> file;
  try {
    // Before the transaction: SQLite cannot ATTACH inside one.
    file = std::make_unique<storage::AttachedRunFile>(store, run_file);
  } catch (const std::exception& e) {
    RecordOutcome outcome;
    outcome.error = e.what();
    record_failure(store, run_id, std::move(finish), outcome.error);
    return outcome;
  }
  return record(store, run_id, file.get(), std::move(finish), warmup_steps, launch_provenance);
}

RecordOutcome record_run(
    storage::Db& store, std::int64_t run_id, const runfile::RunFileContents& contents,
    storage::RunFinish finish, std::optional<int> warmup_steps,
    const std::vector<std::pair<std::string, std::string>>& launch_provenance) {
  return record(store, run_id, &contents, std::move(finish), warmup_steps, launch_provenance);
}

}  // namespace culprit::launch
