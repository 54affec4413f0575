#include "culprit/storage/ingest.hpp"

#include <filesystem>
#include <functional>
#include <stdexcept>

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

// SQLite's own words, without the "database <store>: ...: " prefix Db adds: the problem is the
// run file, and naming the results store there misleads.
std::string sqlite_reason(Db& store, const std::string& what) {
  const std::string prefix = "database " + store.path() + ": ";
  if (what.rfind(prefix, 0) != 0) return what;
  const std::string rest = what.substr(prefix.size());
  const auto last = rest.rfind(": ");
  return last == std::string::npos ? rest : rest.substr(last + 2);
}

// True when run.event_rows has exactly the store's event columns, in the same order.
bool run_file_events_match_store(Db& store) {
  auto columns = [&](const char* schema) {
    Statement info(store, std::string("PRAGMA ") + schema + ".table_info(event_rows)");
    std::string names;
    while (info.step()) names += info.column_text(1) + "," + info.column_text(2) + ";";
    return names;
  };
  return columns("main") == columns("run");
}

}  // namespace

AttachedRunFile::AttachedRunFile(Db& store, const std::string& path) : store_(store), path_(path) {
  if (!std::filesystem::is_regular_file(path)) throw bad_run_file(path, "missing");
  Statement attach(store_, "ATTACH DATABASE ?1 AS run");
  attach.bind(1, path);
  try {
    attach.run();
  } catch (const std::runtime_error& e) {
    throw bad_run_file(path, sqlite_reason(store_, e.what()));
  }
  try {
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
  } catch (const std::runtime_error& e) {
    store_.exec("DETACH DATABASE run");
    const std::string what = e.what();
    if (what.rfind("bad run file", 0) == 0) throw;
    throw bad_run_file(path, "not a run file (" + sqlite_reason(store_, what) + ")");
  }
}

AttachedRunFile::~AttachedRunFile() {
  try {
    store_.exec("DETACH DATABASE run");
  } catch (...) {  // a destructor must not throw; the attachment ends with the connection
  }
}

std::int64_t AttachedRunFile::event_count() {
  return store_
      .query_int(format_ == 1 ? "SELECT count(*) FROM run.events"
                              : "SELECT count(*) FROM run.event_rows")
      .value_or(0);
}

void clear_run_data(Db& store, std::int64_t run_id) {
  Statement events(store,
                   "DELETE FROM event_rows WHERE rowid BETWEEN (SELECT first_event_rowid FROM runs "
                   "WHERE id = ?1) AND (SELECT last_event_rowid FROM runs WHERE id = ?1)");
  events.bind(1, run_id).run();
  Statement range(store,
                  "UPDATE runs SET first_event_rowid = NULL, last_event_rowid = NULL "
                  "WHERE id = ?1");
  range.bind(1, run_id).run();
  for (const char* table :
       {"steps", "run_meta", "provenance", "clock_models", "run_config_echo", "run_event_names"}) {
    Statement stmt(store, std::string("DELETE FROM ") + table + " WHERE run_id = ?1");
    stmt.bind(1, run_id).run();
  }
}

std::int64_t append_events(Db& store, std::int64_t run_id, const std::string& select_tail,
                           const std::function<void(Statement&)>& bind_source) {
  return append_events_sql(store, run_id,
                           std::string("INSERT INTO event_rows (") + kEventColumns + ") SELECT " +
                               kEventColumns + " " + select_tail,
                           bind_source);
}

std::int64_t append_events_sql(Db& store, std::int64_t run_id, const std::string& insert_sql,
                               const std::function<void(Statement&)>& bind_source) {
  const std::int64_t before =
      store.query_int("SELECT coalesce(max(rowid), 0) FROM event_rows").value();
  Statement insert(store, insert_sql);
  bind_source(insert);
  insert.run();
  const std::int64_t count = store.changes();
  if (count == 0) return 0;
  const std::int64_t last = store.query_int("SELECT max(rowid) FROM event_rows").value();
  // The range is what every read by run relies on; a gap would mix runs, so it is checked.
  if (last - before != count) {
    store.fail("events of run " + std::to_string(run_id) + " did not get contiguous rowids");
  }
  Statement range(store,
                  "UPDATE runs SET first_event_rowid = ?2, last_event_rowid = ?3 WHERE id = ?1");
  range.bind(1, run_id).bind(2, before + 1).bind(3, last).run();
  return count;
}

std::int64_t copy_run_file(Db& store, const AttachedRunFile& file, std::int64_t run_id) {
  clear_run_data(store, run_id);
  auto copy = [&](const std::string& sql) {
    Statement stmt(store, sql);
    stmt.bind(1, run_id);
    stmt.run();
  };
  copy("INSERT INTO run_meta (run_id, key, value) SELECT ?1, key, value FROM run.meta");
  copy("INSERT INTO run_config_echo (run_id, json) SELECT ?1, json FROM run.config_echo");
  copy(
      "INSERT INTO provenance (run_id, rank, key, value) SELECT ?1, rank, key, value "
      "FROM run.provenance");
  copy(std::string("INSERT INTO clock_models (run_id, ") + kClockColumns + ") SELECT ?1, " +
       kClockColumns + " FROM run.clock_models");
  if (file.format() == 1) {
    // Format 1: names interned here (ids in name order), kinds through event_kinds.
    copy(
        "INSERT INTO run_event_names (run_id, id, name) SELECT ?1, "
        "row_number() OVER (ORDER BY name) - 1, name FROM (SELECT DISTINCT name FROM run.events)");
    return append_events_sql(
        store, run_id,
        std::string("INSERT INTO event_rows (") + kEventColumns +
            ") SELECT e.rank, e.step, e.microbatch, e.layer, e.seq, k.id, n.id, e.begin_ns, "
            "e.end_ns, e.bytes, e.device, e.stream FROM run.events e "
            "JOIN event_kinds k ON k.name = e.kind "
            "JOIN run_event_names n ON n.run_id = ?1 AND n.name = e.name",
        [&](Statement& stmt) { stmt.bind(1, run_id); });
  }
  copy("INSERT INTO run_event_names (run_id, id, name) SELECT ?1, id, name FROM run.event_names");
  // `SELECT *` from a table with the store's exact columns lets SQLite copy stored rows as they
  // are (no column list, no WHERE), which is most of the ingest time; a run file with other
  // columns goes through the explicit list.
  if (run_file_events_match_store(store)) {
    return append_events_sql(store, run_id, "INSERT INTO event_rows SELECT * FROM run.event_rows",
                             [](Statement&) {});
  }
  return append_events(store, run_id, "FROM run.event_rows", [](Statement&) {});
}

void replace_steps(Db& store, std::int64_t run_id, const std::vector<StepRow>& steps) {
  Statement clear(store, "DELETE FROM steps WHERE run_id = ?1");
  clear.bind(1, run_id).run();
  Statement insert(store,
                   "INSERT INTO steps (run_id, step, time_ms, boundary_ns, last_rank, warmup) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  for (const StepRow& s : steps) {
    insert.bind(1, run_id)
        .bind(2, s.step)
        .bind(3, s.time_ms)
        .bind(4, s.boundary_ns)
        .bind(5, s.last_rank)
        .bind(6, s.warmup ? 1 : 0);
    insert.run();
  }
}

}  // namespace culprit::storage
