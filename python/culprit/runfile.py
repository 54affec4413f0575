"""The run file (docs/schema.md): one SQLite database per run, written by rank 0 only.

The DDL is a copy of the one owner, workloads/stepclock/src/runfile_schema.cpp; the integration
test tests/integration/python/schema_matches.sh compares a run file written here with one
written by culprit-step, table by table (PRAGMA table_info), so the two cannot drift apart.
"""

import os
import sqlite3

FORMAT_VERSION = 1

SCHEMA_SQL = """
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
CREATE TABLE events (
  rank       INTEGER NOT NULL,
  step       INTEGER NOT NULL,
  microbatch INTEGER NOT NULL,
  layer      INTEGER NOT NULL,
  seq        INTEGER NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('compute', 'collective', 'host', 'step')),
  name       TEXT NOT NULL,
  begin_ns   INTEGER NOT NULL,
  end_ns     INTEGER NOT NULL,
  bytes      INTEGER NOT NULL,
  device     INTEGER NOT NULL,
  stream     INTEGER NOT NULL
);
"""

EVENT_KINDS = ("compute", "collective", "host", "step")


def write_run_file(path, meta, config_json, provenance, clock_models, events):
    """Writes the run file to a temporary name beside `path`, syncs it and renames it, so a
    crash never leaves a half file under the final name.

    meta: {key: value}; provenance: [(rank, key, value)]; clock_models: [dict with the
    clock_models columns]; events: [(rank, step, microbatch, layer, seq, kind, name, begin_ns,
    end_ns, bytes, device, stream)].
    """
    path = os.path.abspath(path)
    temp = "%s.tmp.%d" % (path, os.getpid())
    if os.path.exists(temp):
        os.remove(temp)
    try:
        db = sqlite3.connect(temp, isolation_level=None)
        try:
            db.execute("PRAGMA page_size=65536")
            db.execute("PRAGMA journal_mode=OFF")
            db.execute("PRAGMA synchronous=OFF")
            db.execute("BEGIN")
            for statement in SCHEMA_SQL.split(";"):
                if statement.strip():
                    db.execute(statement)
            rows = [("format_version", str(FORMAT_VERSION))]
            rows += [(str(k), str(v)) for k, v in meta.items() if k != "format_version"]
            db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", rows)
            db.executemany(
                "INSERT OR REPLACE INTO provenance (rank, key, value) VALUES (?, ?, ?)",
                [(int(r), str(k), str(v)) for r, k, v in provenance])
            db.execute("INSERT INTO config_echo (id, json) VALUES (1, ?)", (config_json,))
            db.executemany(
                "INSERT INTO clock_models (rank, host, ref_ns, offset_ns, drift_ppm, "
                "uncertainty_ns, start_rtt_ns, end_rtt_ns, exchanges) "
                "VALUES (:rank, :host, :ref_ns, :offset_ns, :drift_ppm, :uncertainty_ns, "
                ":start_rtt_ns, :end_rtt_ns, :exchanges)", clock_models)
            db.executemany(
                "INSERT INTO events (rank, step, microbatch, layer, seq, kind, name, begin_ns, "
                "end_ns, bytes, device, stream) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", events)
            db.execute("COMMIT")
        finally:
            db.close()
        fd = os.open(temp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise
