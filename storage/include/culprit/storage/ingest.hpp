#pragma once
// Ingest: a run's facts copied into the store inside the caller's transaction, so a run lands
// whole or not at all. A run file (docs/schema.md, "Run file") is ATTACHed first: SQLite cannot
// ATTACH inside a transaction, hence the order: attach, begin, copy, commit.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "culprit/storage/db.hpp"
#include "culprit/storage/run_data.hpp"
#include "runfile/run_file.hpp"

namespace culprit::storage {

// Attaches a run file to `store` as schema `run` for its lifetime, after checking that it is
// a run file of a format this culprit reads. Throws std::runtime_error ("bad run file ...")
// when the file is missing, not SQLite, or of another format.
class AttachedRunFile {
 public:
  AttachedRunFile(Db& store, const std::string& path);
  AttachedRunFile(const AttachedRunFile&) = delete;
  AttachedRunFile& operator=(const AttachedRunFile&) = delete;
  ~AttachedRunFile();

  const std::string& path() const { return path_; }
  int format() const { return format_; }  // the run file's format_version
  std::int64_t event_count();

 private:
  // Throws unless each of the run file's objects named (a quoted SQL list) is a table.
  void require_tables(const std::string& quoted_names);

  Db& store_;
  std::string path_;
  int format_ = 0;
};

// What the one copy of a run tells its caller while it writes the run: the clock models before
// any event, then every step event (kind step) in the order written (rank, then step). The
// caller derives from them what it needs (launch::record_run: the step times) instead of reading
// the events back from the store.
class IngestObserver {
 public:
  virtual ~IngestObserver() = default;
  virtual void clock_models(const std::vector<ClockModel>& clocks) = 0;
  virtual void step_event(const runfile::EventRecord& event) = 0;
};

// A run as it reaches the store: a run file attached to it (made before the transaction), or
// contents built in this process (culprit import: no file written and read back).
using RunSource = std::variant<const AttachedRunFile*, const runfile::RunFileContents*>;

// The one way a run's facts get into the store: every table of the source copied under
// `run_id` (replacing rows a previous attempt of the same run may have left), the events as the
// run's packs, each pack written once and shown to `observer` (may be null) as it is written.
// Contents in memory land in the same rows as the run file write_run_file would make of them
// (runfile::check_contents first). Packs only (the C++ writer) are copied one at a time as they
// are, checked but not repacked; rows (formats 1 and 2, the Python module) are packed here.
// Throws std::runtime_error ("bad run file ...", naming the pack's rank) for a damaged pack.
// Call inside a Transaction. Returns the number of events copied.
std::int64_t copy_run(Db& store, RunSource source, std::int64_t run_id,
                      IngestObserver* observer = nullptr);

// One row of the `steps` table (the step times analysis derived from the run's events).
struct StepRow {
  int step = 0;
  double time_ms = 0;
  double boundary_ns = 0;
  int last_rank = -1;
  bool warmup = false;
};

// Replaces the run's steps. Call inside a Transaction.
void replace_steps(Db& store, std::int64_t run_id, const std::vector<StepRow>& steps);

// The event columns shared by run files and the store (same names, same order): the runfile
// library's runfile::kEventColumns.
extern const char* const kEventColumns;

// One event from a statement that selected kEventColumns (in that order) first.
runfile::EventRecord read_event_record(Statement& stmt);

// Stores `events` as the run's packs (one per rank, runfile::pack_by_rank), each shown to
// `observer` (may be null) as copy_run shows them. Call inside a Transaction, after
// clear_run_data. Returns the count.
std::int64_t insert_packs(Db& store, std::int64_t run_id,
                          const std::vector<runfile::EventRecord>& events,
                          IngestObserver* observer = nullptr);

// Deletes everything a run's earlier attempt ingested (events and their names, steps, meta,
// provenance, clock models, config echo); the runs row itself stays.
void clear_run_data(Db& store, std::int64_t run_id);

}  // namespace culprit::storage
