#include "culprit/storage/ingest.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "ingest_parts.hpp"
#include "runfile/meta_keys.hpp"
#include "runfile/packed.hpp"
#include "runfile/run_file.hpp"

namespace culprit::storage {

const char* const kEventColumns = runfile::kEventColumns;

namespace {

// Format 1 (kind and name as text in every row) is still read; its rows are interned here.
constexpr int kOldestRunFileFormat = 1;

std::runtime_error bad_run_file(const std::string& path, const std::string& why) {
  return std::runtime_error("bad run file " + path + ": " + why);
}

// SQLite's own words, without the "database <path>: ...: " prefix Db adds: the problem is the
// run file, and naming the results store there misleads.
std::string sqlite_reason(const std::string& db_path, const std::string& what) {
  const std::string prefix = "database " + db_path + ": ";
  if (what.rfind(prefix, 0) != 0) return what;
  const std::string rest = what.substr(prefix.size());
  const auto last = rest.rfind(": ");
  return last == std::string::npos ? rest : rest.substr(last + 2);
}

}  // namespace

AttachedRunFile::AttachedRunFile(Db& store, const std::string& path) : store_(store), path_(path) {
  if (!std::filesystem::is_regular_file(path)) throw bad_run_file(path, "missing");
  // A file SQLite cannot read (not a database, a damaged schema) is refused on a connection of
  // its own: a failed ATTACH makes SQLite drop every schema of the store's connection, which
  // then parses the store's schema again (its run_events view, ~1 ms) on the next statement.
  try {
    Db probe(path);  // read-write as the ATTACH: a hot journal is rolled back, not refused
    probe.query_int("SELECT count(*) FROM sqlite_schema");
  } catch (const std::runtime_error& e) {
    throw bad_run_file(path, sqlite_reason(path, e.what()));
  }
  Statement attach(store_, "ATTACH DATABASE ?1 AS run");
  attach.bind(1, path);
  try {
    attach.run();
  } catch (const std::runtime_error& e) {
    throw bad_run_file(path, sqlite_reason(store_.path(), e.what()));
  }
  try {
    // What ingest reads must be tables: a view in a table's place runs whatever query it holds
    // (a recursive one that never ends, found by fuzz_ingest) where ingest reads the table.
    require_tables(
        "'meta', 'config_echo', 'provenance', 'clock_models', 'event_kinds', "
        "'event_names', 'event_rows', 'event_packs'");
    Statement read_version(store_, "SELECT value FROM run.meta WHERE key = ?1");
    read_version.bind(1, runfile::meta::kFormatVersion);
    const std::optional<std::string> version =
        read_version.step() ? std::optional(read_version.column_text(0)) : std::nullopt;
    if (!version) throw bad_run_file(path, "meta.format_version is missing");
    format_ = 0;
    for (int f = kOldestRunFileFormat; f <= runfile::kFormatVersion; ++f) {
      if (*version == std::to_string(f)) format_ = f;
    }
    if (format_ == 0) {
      throw bad_run_file(path, "format_version " + *version + ", this culprit reads " +
                                   std::to_string(kOldestRunFileFormat) + " to " +
                                   std::to_string(runfile::kFormatVersion));
    }
    if (format_ == 1) require_tables("'events'");  // a view of the packs from format 3 on
  } catch (const std::runtime_error& e) {
    store_.exec("DETACH DATABASE run");
    const std::string what = e.what();
    if (what.rfind("bad run file", 0) == 0) throw;
    throw bad_run_file(path, "not a run file (" + sqlite_reason(store_.path(), what) + ")");
  }
}

void AttachedRunFile::require_tables(const std::string& quoted_names) {
  Statement other(store_,
                  "SELECT name, type FROM run.sqlite_schema WHERE type <> 'table' AND name IN (" +
                      quoted_names + ") LIMIT 1");
  if (other.step()) {
    throw bad_run_file(path_, other.column_text(0) + " is a " + other.column_text(1) +
                                  ", not a table: write run files with a culprit writer "
                                  "(docs/schema.md)");
  }
}

AttachedRunFile::~AttachedRunFile() {
  try {
    store_.exec("DETACH DATABASE run");
  } catch (...) {  // a destructor must not throw; the attachment ends with the connection
  }
}

std::int64_t AttachedRunFile::event_count() {
  if (format_ == 1) return store_.query_int("SELECT count(*) FROM run.events").value_or(0);
  std::int64_t count = store_.query_int("SELECT count(*) FROM run.event_rows").value_or(0);
  if (format_ >= 3) {
    count += store_.query_int("SELECT coalesce(sum(events), 0) FROM run.event_packs").value_or(0);
  }
  return count;
}

void clear_run_data(Db& store, std::int64_t run_id) {
  Statement range(store,
                  "UPDATE runs SET first_event_rowid = NULL, last_event_rowid = NULL "
                  "WHERE id = ?1");
  range.bind(1, run_id).run();
  for (const char* table : {"steps", "run_meta", "provenance", "clock_models", "run_config_echo",
                            "run_event_names", "run_event_packs"}) {
    Statement stmt(store, std::string("DELETE FROM ") + table + " WHERE run_id = ?1");
    stmt.bind(1, run_id).run();
  }
}

runfile::EventRecord read_event_record(Statement& stmt) {
  runfile::EventRecord e;
  std::int64_t kind = 0;
  stmt.columns(e.rank, e.step, e.microbatch, e.layer, e.seq, kind, e.name, e.begin_ns, e.end_ns,
               e.bytes, e.device, e.stream);
  if (kind < 0 || kind >= runfile::kEventKindCount) {
    throw std::invalid_argument("event kind " + std::to_string(kind) +
                                " is not one of event_kinds");
  }
  e.kind = static_cast<runfile::EventKind>(kind);
  return e;
}

std::int64_t insert_packs(Db& store, std::int64_t run_id,
                          const std::vector<runfile::EventRecord>& events,
                          IngestObserver* observer) {
  return insert_events(store, run_id, events, "run " + std::to_string(run_id), observer);
}

std::int64_t insert_events(Db& store, std::int64_t run_id,
                           const std::vector<runfile::EventRecord>& events,
                           const std::string& where, IngestObserver* observer) {
  PackInserter insert(store, run_id, run_name_count(store, run_id), where, observer);
  for (const runfile::EventPack& pack : runfile::pack_by_rank(events)) {
    insert.add(pack.rank, pack.count, pack.data);
  }
  return insert.events();
}

std::int64_t run_name_count(Db& store, std::int64_t run_id) {
  Statement stmt(store, "SELECT coalesce(max(id), -1) + 1 FROM run_event_names WHERE run_id = ?1");
  stmt.bind(1, run_id);
  return stmt.step() ? stmt.column_int(0) : 0;
}

PackInserter::PackInserter(Db& store, std::int64_t run_id, std::int64_t names, std::string where,
                           IngestObserver* observer)
    : insert_(store,
              "INSERT INTO run_event_packs (run_id, rank, events, data) VALUES (?1, ?2, ?3, ?4)"),
      run_id_(run_id),
      names_(names),
      where_(std::move(where)),
      observer_(observer) {
  insert_.purpose("storing the event packs of run " + std::to_string(run_id));
}

void PackInserter::add(std::int32_t rank, std::int64_t count, std::span<const unsigned char> data) {
  insert_.bind(1, run_id_).bind(2, std::int64_t{rank}).bind(3, count);
  insert_.bind_blob(4, data);
  insert_.run();
  events_ += count;
  // Header and size checked by the caller (the writer's own packs, or a run file's).
  const runfile::PackReader pack(data.data(), data.size(), count);
  const std::size_t n = pack.count();
  kinds_.resize(n);
  names_of_.resize(n);
  pack.column(runfile::kPackKind, kinds_.data());
  pack.column(runfile::kPackName, names_of_.data());
  for (std::size_t i = 0; i < n; ++i) {
    std::string why;
    if (kinds_[i] < 0 || kinds_[i] >= runfile::kEventKindCount)
      why = "event kind " + std::to_string(kinds_[i]) + " is not one of event_kinds";
    else if (names_of_[i] < 0 || names_of_[i] >= names_)
      why = "event name id " + std::to_string(names_of_[i]) + " is not in the names table";
    if (!why.empty())
      throw std::runtime_error(where_ + ": event pack of rank " + std::to_string(rank) + ": " +
                               why);
  }
  if (observer_ == nullptr) return;
  constexpr auto kStep = static_cast<std::int64_t>(runfile::EventKind::kStep);
  if (std::find(kinds_.begin(), kinds_.end(), kStep) == kinds_.end()) return;
  steps_.resize(n);
  begins_.resize(n);
  durations_.resize(n);
  pack.column(runfile::kPackStep, steps_.data());
  pack.column(runfile::kPackBegin, begins_.data());
  pack.column(runfile::kPackDuration, durations_.data());
  for (std::size_t i = 0; i < n; ++i) {
    if (kinds_[i] != kStep) continue;
    runfile::EventRecord e;
    e.rank = rank;
    e.kind = runfile::EventKind::kStep;
    e.step = static_cast<std::int32_t>(steps_[i]);
    e.begin_ns = begins_[i];
    e.end_ns = static_cast<std::int64_t>(static_cast<std::uint64_t>(begins_[i]) +
                                         static_cast<std::uint64_t>(durations_[i]));
    observer_->step_event(e);
  }
}

std::int64_t copy_run(Db& store, RunSource source, std::int64_t run_id, IngestObserver* observer) {
  if (const auto* file = std::get_if<const AttachedRunFile*>(&source)) {
    return copy_run_file(store, **file, run_id, observer);
  }
  return copy_run_contents(store, *std::get<const runfile::RunFileContents*>(source), run_id,
                           observer);
}

void replace_steps(Db& store, std::int64_t run_id, const std::vector<StepRow>& steps) {
  Statement clear(store, "DELETE FROM steps WHERE run_id = ?1");
  clear.bind(1, run_id).run();
  Statement insert(store,
                   "INSERT INTO steps (run_id, step, time_ms, boundary_ns, last_rank, warmup) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  for (const StepRow& s : steps) {
    insert.bind_all(run_id, s.step, s.time_ms, s.boundary_ns, s.last_rank, s.warmup ? 1 : 0);
    insert.run();
  }
}

}  // namespace culprit::storage
