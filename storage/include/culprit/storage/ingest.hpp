#pragma once
// Run-file ingest: a run file (docs/schema.md, "Run file") is ATTACHed and copied with
// INSERT ... SELECT inside the caller's transaction, so a run lands whole or not at all.
// SQLite cannot ATTACH inside a transaction, hence the order: attach, begin, copy, commit.

#include <cstdint>
#include <string>
#include <vector>

#include "culprit/storage/db.hpp"
#include "runfile/run_file.hpp"

namespace culprit::storage {

// Format 3 run files with packs only (the C++ writer) are a straight copy of their packs; rows
// (formats 1 and 2, the Python module) are packed here.

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

// Copies every table of the attached run file into the store under `run_id`, replacing rows
// a previous attempt of the same run may have left. Call inside a Transaction.
// Returns the number of events copied.
std::int64_t copy_run_file(Db& store, const AttachedRunFile& file, std::int64_t run_id);

// The same rows from contents held in memory (a source that runs in this process, culprit
// import), as copy_run_file gives for the run file write_run_file would make of them, with no
// file written and read back: runfile::check_contents first (std::runtime_error). Call inside
// a Transaction. Returns the number of events copied.
std::int64_t copy_run_contents(Db& store, const runfile::RunFileContents& contents,
                               std::int64_t run_id);

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

// Stores `events` as the run's packs (one per rank, runfile::pack_by_rank). Call inside a
// Transaction, after clear_run_data. Returns the count.
std::int64_t insert_packs(Db& store, std::int64_t run_id,
                          const std::vector<runfile::EventRecord>& events);

// Deletes everything a run's earlier attempt ingested (events and their names, steps, meta,
// provenance, clock models, config echo); the runs row itself stays.
void clear_run_data(Db& store, std::int64_t run_id);

}  // namespace culprit::storage
