#include "stepclock/runfile.hpp"

namespace stepclock {

const char* event_kind_name(EventKind kind) {
  switch (kind) {
    case EventKind::kCompute:
      return "compute";
    case EventKind::kCollective:
      return "collective";
    case EventKind::kHost:
      return "host";
    case EventKind::kStep:
      return "step";
  }
  return "compute";
}

const char* run_file_schema_sql() {
  return R"sql(
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
)sql";
}

}  // namespace stepclock
