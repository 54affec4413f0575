-- The run file, format 2: the one definition of its tables (docs/schema.md, "Run file").
-- Embedded at build time into the C++ writer (workloads/runfile) and read as is by the Python
-- module (python/culprit/runfile.py). The results store builds its event tables from the
-- event_kinds and event_rows statements below (storage/src/migrations.cpp).
-- Comments are whole lines starting with two dashes, and never hold a semicolon: readers
-- split the text into statements at semicolons.
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE config_echo (
  id   INTEGER PRIMARY KEY CHECK (id = 1),
  json TEXT NOT NULL
);
CREATE TABLE provenance (
  rank  INTEGER NOT NULL,
  key   TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (rank, key)
);
CREATE TABLE clock_models (
  rank           INTEGER PRIMARY KEY,
  host           TEXT NOT NULL,
  ref_ns         INTEGER NOT NULL,
  offset_ns      REAL NOT NULL,
  drift_ppm      REAL NOT NULL,
  uncertainty_ns REAL NOT NULL,
  start_rtt_ns   REAL NOT NULL,
  end_rtt_ns     REAL NOT NULL,
  exchanges      INTEGER NOT NULL
);
CREATE TABLE event_kinds (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
INSERT INTO event_kinds (id, name) VALUES (0, 'compute'), (1, 'collective'), (2, 'host'), (3, 'step');
CREATE TABLE event_names (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
CREATE TABLE event_rows (
  rank       INTEGER NOT NULL,
  step       INTEGER NOT NULL,
  microbatch INTEGER NOT NULL,
  layer      INTEGER NOT NULL,
  seq        INTEGER NOT NULL,
  kind       INTEGER NOT NULL,
  name       INTEGER NOT NULL,
  begin_ns   INTEGER NOT NULL,
  end_ns     INTEGER NOT NULL,
  bytes      INTEGER NOT NULL,
  device     INTEGER NOT NULL,
  stream     INTEGER NOT NULL
);
CREATE VIEW events AS
  SELECT e.rank, e.step, e.microbatch, e.layer, e.seq, k.name AS kind, n.name AS name,
         e.begin_ns, e.end_ns, e.bytes, e.device, e.stream
  FROM event_rows e JOIN event_kinds k ON k.id = e.kind JOIN event_names n ON n.id = e.name;
