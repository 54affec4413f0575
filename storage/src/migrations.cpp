#include <array>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "culprit/errors.hpp"
#include "culprit/storage/ingest.hpp"
#include "culprit/storage/store.hpp"
#include "culprit/storage/writer_lock.hpp"
#include "runfile/packed.hpp"
#include "runfile/run_file.hpp"

namespace culprit::storage {
namespace {

constexpr int kStorePageSize = 65536;
constexpr int kStoreCacheKiB = 64 * 1024;

// Forward migrations: entry i takes a store from version i to i + 1. Never edit a released
// entry (test "released store migrations are never edited"); append a new one and bump
// kStoreSchemaVersion.

// The columns of configurations in version 1, kept by version 2's rebuild of the table.
constexpr const char* kConfigurationColumns1 = R"sql(
  id            INTEGER PRIMARY KEY,
  experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  label         TEXT NOT NULL,
  factor        TEXT NOT NULL,
  level_json    TEXT NOT NULL,
  is_baseline   INTEGER NOT NULL DEFAULT 0,
  version       TEXT NOT NULL DEFAULT '',
  backend       TEXT NOT NULL,
  ranks         INTEGER NOT NULL,
  command_json  TEXT NOT NULL DEFAULT '[]',
  env_json      TEXT NOT NULL DEFAULT '{}',
  resolved_json TEXT NOT NULL,
  config_hash   TEXT NOT NULL,
)sql";

constexpr const char* kVersion1Experiments = R"sql(
CREATE TABLE experiments (
  id             INTEGER PRIMARY KEY,
  name           TEXT NOT NULL,
  manifest_path  TEXT NOT NULL,
  manifest_text  TEXT NOT NULL,
  manifest_hash  TEXT NOT NULL,
  created_at     TEXT NOT NULL,
  forced_changes TEXT NOT NULL DEFAULT '',
  UNIQUE (name)
);
CREATE TABLE configurations ()sql";

constexpr const char* kVersion1Rest = R"sql(  UNIQUE (experiment_id, config_hash),
  UNIQUE (experiment_id, label)
);
CREATE TABLE runs (
  id            INTEGER PRIMARY KEY,
  experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  config_id     INTEGER NOT NULL REFERENCES configurations(id) ON DELETE CASCADE,
  repetition    INTEGER NOT NULL,
  position      INTEGER NOT NULL,
  seed          INTEGER NOT NULL,
  status        TEXT NOT NULL CHECK (status IN
                  ('pending', 'running', 'ok', 'failed', 'timeout', 'crashed', 'interrupted')),
  attempt       INTEGER NOT NULL DEFAULT 1,
  started_at    TEXT,
  finished_at   TEXT,
  wall_s        REAL,
  exit_code     INTEGER,
  signal        INTEGER,
  median_ms     REAL,
  steps_measured INTEGER,
  error         TEXT NOT NULL DEFAULT '',
  command_json  TEXT NOT NULL DEFAULT '[]',
  stdout_tail   TEXT NOT NULL DEFAULT '',
  stderr_tail   TEXT NOT NULL DEFAULT '',
  shard         TEXT NOT NULL DEFAULT '',
  launcher      TEXT NOT NULL DEFAULT '',
  binding       TEXT NOT NULL DEFAULT '',
  first_event_rowid INTEGER,
  last_event_rowid  INTEGER,
  UNIQUE (config_id, repetition)
);
CREATE TABLE run_meta (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key    TEXT NOT NULL,
  value  TEXT NOT NULL,
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
CREATE TABLE run_config_echo (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  json   TEXT NOT NULL
);
CREATE TABLE provenance (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  rank   INTEGER NOT NULL,
  key    TEXT NOT NULL,
  value  TEXT NOT NULL,
  PRIMARY KEY (run_id, rank, key)
) WITHOUT ROWID;
CREATE TABLE clock_models (
  run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  rank           INTEGER NOT NULL,
)sql";

// After the run file's clock_models columns (host .. exchanges), which the store keeps per run.
// A change to those columns in run_file.sql would edit this released migration (the pinned hash
// refuses it): write today's columns out here literally before making one.
constexpr const char* kVersion1AfterClocks = R"sql(  PRIMARY KEY (run_id, rank)
) WITHOUT ROWID;
-- Events carry no run_id, foreign key or index: ingest appends one run's events in a single
-- INSERT ... SELECT, so they occupy the contiguous rowid range recorded in runs
-- (first_event_rowid .. last_event_rowid); reads by run use that range (view run_events).
-- The columns are exactly the run file's, so SQLite copies the rows as they are stored
-- (its transfer optimisation) instead of decoding and re-encoding each one.
CREATE TABLE events (
  rank       INTEGER NOT NULL,
  step       INTEGER NOT NULL,
  microbatch INTEGER NOT NULL,
  layer      INTEGER NOT NULL,
  seq        INTEGER NOT NULL,
  kind       TEXT NOT NULL,
  name       TEXT NOT NULL,
  begin_ns   INTEGER NOT NULL,
  end_ns     INTEGER NOT NULL,
  bytes      INTEGER NOT NULL,
  device     INTEGER NOT NULL,
  stream     INTEGER NOT NULL
);
CREATE VIEW run_events AS
  SELECT r.id AS run_id, e.rank, e.step, e.microbatch, e.layer, e.seq, e.kind, e.name,
         e.begin_ns, e.end_ns, e.bytes, e.device, e.stream
  FROM runs r JOIN events e ON e.rowid BETWEEN r.first_event_rowid AND r.last_event_rowid;
CREATE TABLE steps (
  run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step        INTEGER NOT NULL,
  time_ms     REAL NOT NULL,
  boundary_ns REAL NOT NULL,
  last_rank   INTEGER NOT NULL,
  warmup      INTEGER NOT NULL,
  PRIMARY KEY (run_id, step)
) WITHOUT ROWID;
CREATE INDEX runs_by_config ON runs (config_id, status);
CREATE INDEX runs_by_experiment ON runs (experiment_id, position);
)sql";

// Version 2: "superseded" is a column, no longer a ' [superseded HASH12]' suffix of the label; a
// label is unique only among the current configurations. SQLite cannot drop a UNIQUE
// constraint, so the table is rebuilt (open_store runs migrations with foreign keys off).
constexpr const char* kVersion2Create = R"sql(
CREATE TABLE configurations_v2 ()sql";

constexpr const char* kVersion2Rest = R"sql(  superseded    INTEGER NOT NULL DEFAULT 0,
  UNIQUE (experiment_id, config_hash)
);
INSERT INTO configurations_v2 (id, experiment_id, label, factor, level_json, is_baseline, version,
                               backend, ranks, command_json, env_json, resolved_json, config_hash,
                               superseded)
  SELECT id, experiment_id,
         CASE WHEN label LIKE '% [superseded %]'
              THEN substr(label, 1, instr(label, ' [superseded ') - 1) ELSE label END,
         factor, level_json, is_baseline, version, backend, ranks, command_json, env_json,
         resolved_json, config_hash, label LIKE '% [superseded %]'
  FROM configurations;
DROP TABLE configurations;
ALTER TABLE configurations_v2 RENAME TO configurations;
CREATE UNIQUE INDEX configurations_current_label ON configurations (experiment_id, label)
  WHERE superseded = 0;
)sql";

// Version 3: events interned (issue 17). The rows are the run file's event_rows (kind and name
// as integers, their tables from the run file's one DDL), names per run in run_event_names; the
// text rows of versions 1 and 2 are rewritten in place, keeping their rowids, so every run's range
// stays.
constexpr const char* kVersion3 = R"sql(
CREATE TABLE run_event_names (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  id     INTEGER NOT NULL,
  name   TEXT NOT NULL,
  PRIMARY KEY (run_id, id)
) WITHOUT ROWID;
INSERT INTO run_event_names (run_id, id, name)
  SELECT run_id, row_number() OVER (PARTITION BY run_id ORDER BY name) - 1, name
  FROM (SELECT DISTINCT r.id AS run_id, e.name AS name
        FROM runs r JOIN events e ON e.rowid BETWEEN r.first_event_rowid AND r.last_event_rowid);
INSERT INTO event_rows (rowid, rank, step, microbatch, layer, seq, kind, name, begin_ns, end_ns,
                        bytes, device, stream)
  SELECT e.rowid, e.rank, e.step, e.microbatch, e.layer, e.seq, k.id, n.id, e.begin_ns, e.end_ns,
         e.bytes, e.device, e.stream
  FROM runs r JOIN events e ON e.rowid BETWEEN r.first_event_rowid AND r.last_event_rowid
  JOIN event_kinds k ON k.name = e.kind
  JOIN run_event_names n ON n.run_id = r.id AND n.name = e.name
  ORDER BY e.rowid;
DROP VIEW run_events;
DROP TABLE events;
CREATE VIEW run_events AS
  SELECT r.id AS run_id, e.rank, e.step, e.microbatch, e.layer, e.seq, k.name AS kind,
         n.name AS name, e.begin_ns, e.end_ns, e.bytes, e.device, e.stream
  FROM runs r JOIN event_rows e ON e.rowid BETWEEN r.first_event_rowid AND r.last_event_rowid
  JOIN event_kinds k ON k.id = e.kind
  JOIN run_event_names n ON n.run_id = r.id AND n.id = e.name;
)sql";

// Version 4: events packed (issue 17): one blob of fixed-width columns per run and rank
// (runfile/packed.hpp), so that ingest copies a run file's packs as they are and loading a run
// reads a few thousand blobs, not millions of rows. The rows of version 3 are packed by
// pack_stored_rows (C++, between the two halves) and event_rows is dropped; runs keep their
// (now unused) rowid range columns, set to NULL.
constexpr const char* kVersion4Create = R"sql(
CREATE TABLE run_event_packs (
  id     INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  rank   INTEGER NOT NULL,
  events INTEGER NOT NULL,
  data   BLOB NOT NULL
);
CREATE INDEX run_event_packs_by_run ON run_event_packs (run_id, rank);
)sql";

std::string version4_finish() {
  return "DROP VIEW run_events;\nDROP TABLE event_rows;\n"
         "UPDATE runs SET first_event_rowid = NULL, last_event_rowid = NULL;\n"
         "CREATE VIEW run_events AS\n  SELECT e.run_id, e.rank, e.step, e.microbatch, e.layer, "
         "e.seq, k.name AS kind, n.name AS name, e.begin_ns, e.end_ns, e.bytes, e.device, "
         "e.stream\n  FROM (\n" +
         runfile::packed_events_select("run_event_packs", "run_id") +
         "\n) e JOIN event_kinds k ON k.id = e.kind\n  JOIN run_event_names n ON n.run_id = "
         "e.run_id AND n.id = e.name;\n";
}

// Each run's schema-3 rows (its rowid range) into packs.
void pack_stored_rows(Db& db) {
  std::vector<std::int64_t> runs;
  {
    Statement list(db, "SELECT id FROM runs WHERE first_event_rowid IS NOT NULL ORDER BY id");
    while (list.step()) runs.push_back(list.column_int(0));
  }
  Statement read(db, std::string("SELECT ") + runfile::kEventColumns +
                         " FROM event_rows WHERE rowid BETWEEN (SELECT first_event_rowid FROM "
                         "runs WHERE id = ?1) AND (SELECT last_event_rowid FROM runs WHERE id = "
                         "?1) ORDER BY rowid");
  for (const std::int64_t run_id : runs) {
    read.bind(1, run_id);
    std::vector<runfile::EventRecord> events;
    while (read.step()) events.push_back(read_event_record(read));
    read.reset();
    insert_packs(db, run_id, events);
  }
}

// Version 5: the settings an experiment is judged by, as it was registered (issue 33): compare,
// explain, report and validate read them here instead of parsing the stored manifest each.
constexpr const char* kVersion5 = R"sql(
CREATE TABLE experiment_settings (
  experiment_id   INTEGER PRIMARY KEY REFERENCES experiments(id) ON DELETE CASCADE,
  alpha           REAL NOT NULL,
  margin          REAL NOT NULL,
  repetitions     INTEGER NOT NULL,
  max_repetitions INTEGER NOT NULL
);
)sql";

// Version 6: evidence attached to a run (issue 35): Nsight Compute kernel counters and GPU
// telemetry samples per rank. Evidence about a run, not a run: steps, events and attribution
// never read these tables.
constexpr const char* kVersion6Evidence = R"sql(
CREATE TABLE run_kernel_counters (
  run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  rank      INTEGER NOT NULL,
  phase     TEXT NOT NULL,
  source    TEXT NOT NULL,
  kernel    TEXT NOT NULL,
  launch_id INTEGER NOT NULL,
  section   TEXT NOT NULL,
  metric    TEXT NOT NULL,
  unit      TEXT NOT NULL,
  value     REAL,
  text      TEXT NOT NULL,
  PRIMARY KEY (run_id, rank, source, kernel, launch_id, section, metric)
) WITHOUT ROWID;
CREATE TABLE run_telemetry (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  rank    INTEGER NOT NULL,
  gpu     INTEGER NOT NULL,
  host    TEXT NOT NULL,
  source  TEXT NOT NULL,
  field   TEXT NOT NULL,
  time_ns REAL NOT NULL,
  value   REAL NOT NULL,
  PRIMARY KEY (run_id, rank, source, field, time_ns)
) WITHOUT ROWID;
)sql";

// Version 7: the rest of an experiment's settings as it ran (issues 33 and 37): how its runs
// were sampled ("adaptive": `culprit run` added runs while a comparison was inconclusive, so
// every comparison is judged at alpha over the planned looks; "fixed", every experiment stored
// before, made its planned runs only), the block of adaptive sampling and the planned looks (0 for
// rows stored before: unknown, read as the block culprit always used), and [reduced_from] of a
// reduced experiment (NULL when it is not one), which explain read by parsing the stored manifest.
// SQL cannot read TOML: an older reduced experiment is marked reduced_from_lost, and `culprit run`
// of its manifest stores the pair.
constexpr const char* kVersion7Settings = R"sql(
ALTER TABLE experiment_settings ADD COLUMN sampling TEXT NOT NULL DEFAULT 'fixed';
ALTER TABLE experiment_settings ADD COLUMN block INTEGER NOT NULL DEFAULT 0;
ALTER TABLE experiment_settings ADD COLUMN looks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE experiment_settings ADD COLUMN reduced_baseline_run INTEGER;
ALTER TABLE experiment_settings ADD COLUMN reduced_candidate_run INTEGER;
ALTER TABLE experiment_settings ADD COLUMN reduced_baseline_median_ms REAL;
ALTER TABLE experiment_settings ADD COLUMN reduced_candidate_median_ms REAL;
ALTER TABLE experiment_settings ADD COLUMN reduced_delta_ms REAL;
ALTER TABLE experiment_settings ADD COLUMN reduced_shift_ms REAL;
ALTER TABLE experiment_settings ADD COLUMN reduced_shift_runs TEXT;
ALTER TABLE experiment_settings ADD COLUMN reduced_db TEXT;
ALTER TABLE experiment_settings ADD COLUMN reduced_excess_steps TEXT;
ALTER TABLE experiment_settings ADD COLUMN reduced_step_excess_ms REAL;
ALTER TABLE experiment_settings ADD COLUMN reduced_from_lost INTEGER NOT NULL DEFAULT 0;
UPDATE experiment_settings SET reduced_from_lost = 1 WHERE experiment_id IN
  (SELECT id FROM experiments WHERE instr(manifest_text, '[reduced_from]') > 0);
)sql";

std::array<std::string, kStoreSchemaVersion> migrations() {
  const std::string columns = kConfigurationColumns1;
  return {kVersion1Experiments + columns + kVersion1Rest +
              runfile::column_definitions("clock_models", "host") + kVersion1AfterClocks,
          kVersion2Create + columns + kVersion2Rest,
          runfile::schema_statements("event_kinds") + runfile::schema_statements("event_rows") +
              kVersion3,
          std::string(kVersion4Create) + version4_finish(),
          kVersion5,
          kVersion6Evidence,
          kVersion7Settings};
}

}  // namespace

std::string store_migration(int from_version) {
  return migrations().at(static_cast<std::size_t>(from_version));
}

int schema_version(Db& db) {
  return static_cast<int>(db.query_int("PRAGMA user_version").value_or(0));
}

namespace {

namespace fs = std::filesystem;

// The store's path must name a file (existing or to be created) in an existing folder.
void check_store_path(const std::string& path, bool must_exist) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (fs::is_directory(status)) {
    throw UsageError("database " + path + " is a folder, not a database file: pass --db FILE");
  }
  if (fs::exists(status)) {
    if (!fs::is_regular_file(status)) {
      throw UsageError("database " + path + " is not a regular file: pass --db FILE");
    }
    return;
  }
  if (must_exist) {
    throw UsageError(
        "database " + path +
        " does not exist: run `culprit run MANIFEST` or `culprit import` first, or pass --db PATH");
  }
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    throw UsageError("database " + path + ": the folder " + parent.string() +
                     " does not exist: create it or pass another --db");
  }
}

// The first read of a file tells whether it is SQLite at all; its error becomes the user's.
int probe_schema_version(Db& db) {
  try {
    return schema_version(db);
  } catch (const std::runtime_error& e) {
    throw UsageError("database " + db.path() + " cannot be read as a culprit store (" + e.what() +
                     "): pass the results store with --db");
  }
}

bool has_tables(Db& db) {
  return db.query_int("SELECT 1 FROM sqlite_master LIMIT 1").has_value();
}

std::string table_names(Db& db) {
  Statement stmt(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name LIMIT 6");
  std::string names;
  while (stmt.step()) names += (names.empty() ? "" : ", ") + stmt.column_text(0);
  return names;
}

// A run file holds what the ranks of one run wrote (ingest.cpp reads these tables of it); a
// store never has config_echo.
bool is_run_file(Db& db) {
  return db.query_int(
               "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('meta', "
               "'config_echo', 'event_rows')")
             .value_or(0) == 3;
}

[[noreturn]] void refuse_foreign(Db& db) {
  if (is_run_file(db)) {
    const std::string store = store_of_run_file(db.path());
    throw UsageError("database " + db.path() +
                     " is a culprit run file (one run as its ranks wrote it), not a store: it "
                     "was left untouched; `culprit attribute --run-file " +
                     db.path() + "` reads it as it is; " +
                     (store.empty() ? std::string("pass the store `culprit run` recorded it in")
                                    : "its store is " + store + ": pass that") +
                     " with --db");
  }
  throw UsageError("database " + db.path() +
                   " is a SQLite file of another application (tables: " + table_names(db) +
                   "), not a culprit store: it was left untouched; pass a new file or a culprit "
                   "store with --db (a profiler's export, e.g. Nsight Systems' .sqlite, goes in "
                   "with `culprit import FILE --db STORE`)");
}

[[noreturn]] void refuse_newer(const std::string& path, int version) {
  throw UsageError("database " + path + " has schema version " + std::to_string(version) +
                   ", newer than this culprit (" + std::to_string(kStoreSchemaVersion) +
                   "): upgrade culprit or use another --db");
}

bool writable(const std::string& path) {
  return access(path.c_str(), W_OK) == 0;
}

// The store's settings and its migrations to the current schema version.
void prepare_store(Db& db, const std::string& path) {
  const int found = probe_schema_version(db);
  if (found == 0 && has_tables(db)) refuse_foreign(db);
  if (found > kStoreSchemaVersion) refuse_newer(path, found);
  // Large pages suit the store (bulk appends of events, scans by run); the size can only be
  // chosen before the first table exists, i.e. for a new file.
  if (found == 0) db.exec("PRAGMA page_size=" + std::to_string(kStorePageSize));
  db.exec("PRAGMA journal_mode=WAL");
  db.exec("PRAGMA synchronous=NORMAL");
  db.exec("PRAGMA cache_size=" + std::to_string(kStoreCacheKiB * -1));
  // Foreign keys stay off while migrating: a rebuilt table is dropped and replaced, which with
  // them on would cascade into the rows that reference it. The check runs before the commit.
  const int version = schema_version(db);
  const auto steps = migrations();
  for (int v = version; v < kStoreSchemaVersion; ++v) {
    Transaction tx(db);
    if (v == 3) {
      db.exec(kVersion4Create);
      pack_stored_rows(db);
      db.exec(version4_finish());
    } else {
      db.exec(steps[static_cast<std::size_t>(v)]);
    }
    if (db.query_int("SELECT 1 FROM pragma_foreign_key_check LIMIT 1")) {
      throw std::runtime_error("database " + path + ": migration to schema version " +
                               std::to_string(v + 1) +
                               " left dangling references; the store was left as it was");
    }
    db.exec("PRAGMA user_version = " + std::to_string(v + 1));
    tx.commit();
  }
  db.exec("PRAGMA foreign_keys=ON");
}

}  // namespace

std::unique_ptr<Db> open_store(const std::string& path) {
  check_store_path(path, false);
  if (fs::exists(path) && !writable(path)) {
    throw UsageError("database " + path +
                     " is read-only for this user: read it with runs, compare, explain or "
                     "export, or write to another --db");
  }
  // Before anything is written: a second writer is refused here (naming the holder).
  auto lock = WriterLock::acquire(path);
  if (!lock->stale_holder().empty()) {
    spdlog::warn("database {}: took over the writer lock left by {} (that culprit is gone)", path,
                 lock->stale_holder());
  }
  // Under the lock: a file created here and not made a store (a full disk) is removed again.
  const bool existed = fs::exists(path);
  try {
    auto db = std::make_unique<Db>(path);
    db->hold(lock);
    lock->lock_database_file(path);
    prepare_store(*db, path);
    return db;
  } catch (...) {
    if (!existed) {
      std::error_code ec;
      for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path + suffix, ec);
    }
    throw;
  }
}

std::unique_ptr<Db> open_existing_store(const std::string& path) {
  check_store_path(path, true);
  // Read-only, so a store on a read-only mount or of another user can be read. SQLite needs
  // the -shm file of a WAL store; where it cannot create one, the file is opened immutable
  // (nobody can be writing it there).
  auto db = std::make_unique<Db>(path, Db::Mode::kReadOnly);
  int version = 0;
  try {
    version = schema_version(*db);
  } catch (const std::runtime_error&) {
    db = std::make_unique<Db>(path, Db::Mode::kImmutable);
    version = probe_schema_version(*db);
  }
  if (version != kStoreSchemaVersion) {
    if (version == 0) {
      if (has_tables(*db)) refuse_foreign(*db);
      throw UsageError("database " + path + " is empty, not a culprit store: run `culprit run " +
                       "MANIFEST --db " + path + "` first");
    }
    if (version > kStoreSchemaVersion) refuse_newer(path, version);
    db.reset();
    return open_store(path);  // older: migrate forward
  }
  return db;
}

}  // namespace culprit::storage
