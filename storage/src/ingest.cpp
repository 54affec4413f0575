#include "culprit/storage/ingest.hpp"

#include <filesystem>
#include <stdexcept>

#include "runfile/packed.hpp"
#include "runfile/run_file.hpp"

namespace culprit::storage {

const char* const kEventColumns = runfile::kEventColumns;

namespace {

// Format 1 (kind and name as text in every row) is still read; its rows are interned here.
constexpr int kOldestRunFileFormat = 1;

constexpr const char* kClockColumns =
    "rank, host, ref_ns, offset_ns, drift_ppm, uncertainty_ns, start_rtt_ns, end_rtt_ns, "
    "exchanges";

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
    auto version = store_.query_text("SELECT value FROM run.meta WHERE key = 'format_version'");
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
  e.rank = static_cast<std::int32_t>(stmt.column_int(0));
  e.step = static_cast<std::int32_t>(stmt.column_int(1));
  e.microbatch = static_cast<std::int32_t>(stmt.column_int(2));
  e.layer = static_cast<std::int32_t>(stmt.column_int(3));
  e.seq = static_cast<std::int32_t>(stmt.column_int(4));
  e.kind = static_cast<runfile::EventKind>(stmt.column_int(5));
  e.name = static_cast<std::uint16_t>(stmt.column_int(6));
  e.begin_ns = stmt.column_int(7);
  e.end_ns = stmt.column_int(8);
  e.bytes = stmt.column_int(9);
  e.device = static_cast<std::int16_t>(stmt.column_int(10));
  e.stream = static_cast<std::int16_t>(stmt.column_int(11));
  return e;
}

std::int64_t insert_packs(Db& store, std::int64_t run_id,
                          const std::vector<runfile::EventRecord>& events) {
  Statement insert(store,
                   "INSERT INTO run_event_packs (run_id, rank, events, data) VALUES (?1, ?2, ?3, "
                   "?4)");
  insert.purpose("storing the event packs of run " + std::to_string(run_id));
  for (const runfile::EventPack& pack : runfile::pack_by_rank(events)) {
    insert.bind(1, run_id).bind(2, std::int64_t{pack.rank}).bind(3, pack.count);
    insert.bind_blob(4, pack.data);
    insert.run();
  }
  return static_cast<std::int64_t>(events.size());
}

namespace {

// Every event of the attached run file as records (kind and name ids of the store's run):
// its rows, interned here for format 1, and its packs unpacked.
std::vector<runfile::EventRecord> read_run_file_events(Db& store, const AttachedRunFile& file,
                                                       std::int64_t run_id) {
  std::vector<runfile::EventRecord> events;
  {
    Statement rows(store,
                   file.format() == 1
                       ? "SELECT e.rank, e.step, e.microbatch, e.layer, e.seq, k.id, n.id, "
                         "e.begin_ns, e.end_ns, e.bytes, e.device, e.stream FROM run.events e "
                         "JOIN event_kinds k ON k.name = e.kind "
                         "JOIN run_event_names n ON n.run_id = ?1 AND n.name = e.name"
                       : std::string("SELECT ") + kEventColumns + " FROM run.event_rows");
    if (file.format() == 1) rows.bind(1, run_id);
    while (rows.step()) events.push_back(read_event_record(rows));
  }
  if (file.format() >= 3) {
    Statement packs(store, "SELECT rank, events, data FROM run.event_packs ORDER BY rank, rowid");
    while (packs.step()) {
      const auto blob = packs.column_blob(2);
      try {
        const runfile::PackReader reader(blob.data(), blob.size(), packs.column_int(1));
        runfile::unpack_events(reader, static_cast<std::int32_t>(packs.column_int(0)), events);
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error("bad run file " + file.path() + ": event pack of rank " +
                                 std::to_string(packs.column_int(0)) + ": " + e.what());
      }
    }
  }
  return events;
}

// The packs of a run file that has no rows, checked (header and size) but not decoded.
void check_run_file_packs(Db& store, const AttachedRunFile& file) {
  Statement packs(store,
                  "SELECT rank, events, length(data), substr(data, 1, ?1) FROM run.event_packs");
  packs.bind(1, static_cast<std::int64_t>(runfile::kPackHeaderBytes));
  while (packs.step()) {
    const std::int64_t rank = packs.column_int(0);
    const std::int64_t count = packs.column_int(1);
    const auto size = static_cast<std::size_t>(packs.column_int(2));
    const auto header = packs.column_blob(3);
    std::string why;
    if (rank < 0) {
      why = "a negative rank";
    } else if (header.size() < runfile::kPackHeaderBytes || count < 0) {
      why = "not an event pack";
    } else {
      std::size_t expected = runfile::kPackHeaderBytes;
      for (int c = 0; c < runfile::kPackColumns; ++c) {
        expected += static_cast<std::size_t>(count) * header[2 + static_cast<std::size_t>(c)];
      }
      if (header[0] != runfile::kPackLayout || header[1] != runfile::kPackColumns)
        why = "layout " + std::to_string(header[0]) + ", this culprit reads " +
              std::to_string(runfile::kPackLayout);
      else if (expected != size)
        why = std::to_string(size) + " bytes for " + std::to_string(count) + " events, not " +
              std::to_string(expected);
    }
    if (!why.empty()) {
      throw std::runtime_error("bad run file " + file.path() + ": event pack of rank " +
                               std::to_string(rank) + ": " + why);
    }
  }
}

}  // namespace

std::int64_t copy_run_file(Db& store, const AttachedRunFile& file, std::int64_t run_id) {
  clear_run_data(store, run_id);
  auto copy = [&](const std::string& what, const std::string& sql) {
    Statement stmt(store, sql);
    stmt.purpose("copying the run file's " + what + " into run " + std::to_string(run_id));
    stmt.bind(1, run_id);
    stmt.run();
  };
  copy("meta", "INSERT INTO run_meta (run_id, key, value) SELECT ?1, key, value FROM run.meta");
  copy("configuration echo",
       "INSERT INTO run_config_echo (run_id, json) SELECT ?1, json FROM run.config_echo");
  copy("provenance",
       "INSERT INTO provenance (run_id, rank, key, value) SELECT ?1, rank, key, value "
       "FROM run.provenance");
  copy("clock models", std::string("INSERT INTO clock_models (run_id, ") + kClockColumns +
                           ") SELECT ?1, " + kClockColumns + " FROM run.clock_models");
  if (file.format() == 1) {
    // Format 1: names interned here (ids in name order), kinds through event_kinds.
    copy("event names",
         "INSERT INTO run_event_names (run_id, id, name) SELECT ?1, "
         "row_number() OVER (ORDER BY name) - 1, name FROM (SELECT DISTINCT name FROM "
         "run.events)");
  } else {
    copy("event names",
         "INSERT INTO run_event_names (run_id, id, name) SELECT ?1, id, name FROM "
         "run.event_names");
  }
  const bool rows =
      file.format() == 1 || store.query_int("SELECT 1 FROM run.event_rows LIMIT 1").has_value();
  if (rows || file.format() < 3) {
    return insert_packs(store, run_id, read_run_file_events(store, file, run_id));
  }
  // Packs only (the C++ writer): copied as they are, which is the whole ingest of the events.
  check_run_file_packs(store, file);
  copy("event packs",
       "INSERT INTO run_event_packs (run_id, rank, events, data) SELECT ?1, rank, events, data "
       "FROM run.event_packs ORDER BY rank, rowid");
  return store.query_int("SELECT coalesce(sum(events), 0) FROM run.event_packs").value_or(0);
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
