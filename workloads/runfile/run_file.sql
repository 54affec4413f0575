-- The run file, format 3: the one definition of its tables (docs/schema.md, "Run file").
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
CREATE TABLE event_packs (
  rank   INTEGER NOT NULL,
  events INTEGER NOT NULL,
  data   BLOB NOT NULL
);
CREATE INDEX event_packs_by_rank ON event_packs (rank);
-- The events as rows (format 2, the Python module) and decoded from the packs (format 3: the
-- C++ writer), kind and name as text. The packs' part is runfile::packed_events_select
-- ("event_packs", "") verbatim (a unit test keeps them equal): slow on large runs (plain SQL
-- decodes every byte), where culprit's own reader (storage::load_run_file) is the fast way.
CREATE VIEW events AS
  SELECT e.rank, e.step, e.microbatch, e.layer, e.seq, k.name AS kind, n.name AS name,
         e.begin_ns, e.end_ns, e.bytes, e.device, e.stream
  FROM event_rows e JOIN event_kinds k ON k.id = e.kind JOIN event_names n ON n.id = e.name
  UNION ALL
  SELECT e.rank, e.step, e.microbatch, e.layer, e.seq, k.name AS kind, n.name AS name,
         e.begin_ns, e.end_ns, e.bytes, e.device, e.stream
  FROM (
WITH RECURSIVE lut(b) AS (VALUES (X'000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF')),
  h0 AS (SELECT p.rowid AS pid, p.rank AS rank, p.events AS n,
    (instr(lut.b, substr(p.data, 3, 1)) - 1) AS w0,
    (instr(lut.b, substr(p.data, 4, 1)) - 1) AS w1,
    (instr(lut.b, substr(p.data, 5, 1)) - 1) AS w2,
    (instr(lut.b, substr(p.data, 6, 1)) - 1) AS w3,
    (instr(lut.b, substr(p.data, 7, 1)) - 1) AS w4,
    (instr(lut.b, substr(p.data, 8, 1)) - 1) AS w5,
    (instr(lut.b, substr(p.data, 9, 1)) - 1) AS w6,
    (instr(lut.b, substr(p.data, 10, 1)) - 1) AS w7,
    (instr(lut.b, substr(p.data, 11, 1)) - 1) AS w8,
    (instr(lut.b, substr(p.data, 12, 1)) - 1) AS w9,
    (instr(lut.b, substr(p.data, 13, 1)) - 1) AS w10,
    ((instr(lut.b, substr(p.data, 14, 1)) - 1) | ((instr(lut.b, substr(p.data, 15, 1)) - 1) << 8) | ((instr(lut.b, substr(p.data, 16, 1)) - 1) << 16) | ((instr(lut.b, substr(p.data, 17, 1)) - 1) << 24) | ((instr(lut.b, substr(p.data, 18, 1)) - 1) << 32) | ((instr(lut.b, substr(p.data, 19, 1)) - 1) << 40) | ((instr(lut.b, substr(p.data, 20, 1)) - 1) << 48) | ((instr(lut.b, substr(p.data, 21, 1)) - 1) << 56)) AS b0,
    ((instr(lut.b, substr(p.data, 22, 1)) - 1) | ((instr(lut.b, substr(p.data, 23, 1)) - 1) << 8) | ((instr(lut.b, substr(p.data, 24, 1)) - 1) << 16) | ((instr(lut.b, substr(p.data, 25, 1)) - 1) << 24) | ((instr(lut.b, substr(p.data, 26, 1)) - 1) << 32) | ((instr(lut.b, substr(p.data, 27, 1)) - 1) << 40) | ((instr(lut.b, substr(p.data, 28, 1)) - 1) << 48) | ((instr(lut.b, substr(p.data, 29, 1)) - 1) << 56)) AS b1,
    ((instr(lut.b, substr(p.data, 30, 1)) - 1) | ((instr(lut.b, substr(p.data, 31, 1)) - 1) << 8) | ((instr(lut.b, substr(p.data, 32, 1)) - 1) << 16) | ((instr(lut.b, substr(p.data, 33, 1)) - 1) << 24) | ((instr(lut.b, substr(p.data, 34, 1)) - 1) << 32) | ((instr(lut.b, substr(p.data, 35, 1)) - 1) << 40) | ((instr(lut.b, substr(p.data, 36, 1)) - 1) << 48) | ((instr(lut.b, substr(p.data, 37, 1)) - 1) << 56)) AS b2,
    ((instr(lut.b, substr(p.data, 38, 1)) - 1) | ((instr(lut.b, substr(p.data, 39, 1)) - 1) << 8) | ((instr(lut.b, substr(p.data, 40, 1)) - 1) << 16) | ((instr(lut.b, substr(p.data, 41, 1)) - 1) << 24) | ((instr(lut.b, substr(p.data, 42, 1)) - 1) << 32) | ((instr(lut.b, substr(p.data, 43, 1)) - 1) << 40) | ((instr(lut.b, substr(p.data, 44, 1)) - 1) << 48) | ((instr(lut.b, substr(p.data, 45, 1)) - 1) << 56)) AS b3,
    ((instr(lut.b, substr(p.data, 46, 1)) - 1) | ((instr(lut.b, substr(p.data, 47, 1)) - 1) << 8) | ((instr(lut.b, substr(p.data, 48, 1)) - 1) << 16) | ((instr(lut.b, substr(p.data, 49, 1)) - 1) << 24) | ((instr(lut.b, substr(p.data, 50, 1)) - 1) << 32) | ((instr(lut.b, substr(p.data, 51, 1)) - 1) << 40) | ((instr(lut.b, substr(p.data, 52, 1)) - 1) << 48) | ((instr(lut.b, substr(p.data, 53, 1)) - 1) << 56)) AS b4,
    ((instr(lut.b, substr(p.data, 54, 1)) - 1) | ((instr(lut.b, substr(p.data, 55, 1)) - 1) << 8) | ((instr(lut.b, substr(p.data, 56, 1)) - 1) << 16) | ((instr(lut.b, substr(p.data, 57, 1)) - 1) << 24) | ((instr(lut.b, substr(p.data, 58, 1)) - 1) << 32) | ((instr(lut.b, substr(p.data, 59, 1)) - 1) << 40) | ((instr(lut.b, substr(p.data, 60, 1)) - 1) << 48) | ((instr(lut.b, substr(p.data, 61, 1)) - 1) << 56)) AS b5,
    ((instr(lut.b, substr(p.data, 62, 1)) - 1) | ((instr(lut.b, substr(p.data, 63, 1)) - 1) << 8) | ((instr(lut.b, substr(p.data, 64, 1)) - 1) << 16) | ((instr(lut.b, substr(p.data, 65, 1)) - 1) << 24) | ((instr(lut.b, substr(p.data, 66, 1)) - 1) << 32) | ((instr(lut.b, substr(p.data, 67, 1)) - 1) << 40) | ((instr(lut.b, substr(p.data, 68, 1)) - 1) << 48) | ((instr(lut.b, substr(p.data, 69, 1)) - 1) << 56)) AS b6,
    ((instr(lut.b, substr(p.data, 70, 1)) - 1) | ((instr(lut.b, substr(p.data, 71, 1)) - 1) << 8) | ((instr(lut.b, substr(p.data, 72, 1)) - 1) << 16) | ((instr(lut.b, substr(p.data, 73, 1)) - 1) << 24) | ((instr(lut.b, substr(p.data, 74, 1)) - 1) << 32) | ((instr(lut.b, substr(p.data, 75, 1)) - 1) << 40) | ((instr(lut.b, substr(p.data, 76, 1)) - 1) << 48) | ((instr(lut.b, substr(p.data, 77, 1)) - 1) << 56)) AS b7,
    ((instr(lut.b, substr(p.data, 78, 1)) - 1) | ((instr(lut.b, substr(p.data, 79, 1)) - 1) << 8) | ((instr(lut.b, substr(p.data, 80, 1)) - 1) << 16) | ((instr(lut.b, substr(p.data, 81, 1)) - 1) << 24) | ((instr(lut.b, substr(p.data, 82, 1)) - 1) << 32) | ((instr(lut.b, substr(p.data, 83, 1)) - 1) << 40) | ((instr(lut.b, substr(p.data, 84, 1)) - 1) << 48) | ((instr(lut.b, substr(p.data, 85, 1)) - 1) << 56)) AS b8,
    ((instr(lut.b, substr(p.data, 86, 1)) - 1) | ((instr(lut.b, substr(p.data, 87, 1)) - 1) << 8) | ((instr(lut.b, substr(p.data, 88, 1)) - 1) << 16) | ((instr(lut.b, substr(p.data, 89, 1)) - 1) << 24) | ((instr(lut.b, substr(p.data, 90, 1)) - 1) << 32) | ((instr(lut.b, substr(p.data, 91, 1)) - 1) << 40) | ((instr(lut.b, substr(p.data, 92, 1)) - 1) << 48) | ((instr(lut.b, substr(p.data, 93, 1)) - 1) << 56)) AS b9,
    ((instr(lut.b, substr(p.data, 94, 1)) - 1) | ((instr(lut.b, substr(p.data, 95, 1)) - 1) << 8) | ((instr(lut.b, substr(p.data, 96, 1)) - 1) << 16) | ((instr(lut.b, substr(p.data, 97, 1)) - 1) << 24) | ((instr(lut.b, substr(p.data, 98, 1)) - 1) << 32) | ((instr(lut.b, substr(p.data, 99, 1)) - 1) << 40) | ((instr(lut.b, substr(p.data, 100, 1)) - 1) << 48) | ((instr(lut.b, substr(p.data, 101, 1)) - 1) << 56)) AS b10
    FROM event_packs p, lut),
  h AS MATERIALIZED (SELECT *, 102 AS s0, 102 + n * w0 AS s1, 102 + n * w0 + n * w1 AS s2, 102 + n * w0 + n * w1 + n * w2 AS s3, 102 + n * w0 + n * w1 + n * w2 + n * w3 AS s4, 102 + n * w0 + n * w1 + n * w2 + n * w3 + n * w4 AS s5, 102 + n * w0 + n * w1 + n * w2 + n * w3 + n * w4 + n * w5 AS s6, 102 + n * w0 + n * w1 + n * w2 + n * w3 + n * w4 + n * w5 + n * w6 AS s7, 102 + n * w0 + n * w1 + n * w2 + n * w3 + n * w4 + n * w5 + n * w6 + n * w7 AS s8, 102 + n * w0 + n * w1 + n * w2 + n * w3 + n * w4 + n * w5 + n * w6 + n * w7 + n * w8 AS s9, 102 + n * w0 + n * w1 + n * w2 + n * w3 + n * w4 + n * w5 + n * w6 + n * w7 + n * w8 + n * w9 AS s10 FROM h0),
  idx(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM idx WHERE k + 1 < (SELECT max(events) FROM event_packs))
SELECT h.rank AS rank,
  (h.b0 + ((CASE WHEN h.w0 > 0 THEN (instr(lut.b, substr(p.data, h.s0 + idx.k * h.w0, 1)) - 1) ELSE 0 END) | ((CASE WHEN h.w0 > 1 THEN (instr(lut.b, substr(p.data, h.s0 + idx.k * h.w0 + 1, 1)) - 1) ELSE 0 END) << 8) | ((CASE WHEN h.w0 > 2 THEN (instr(lut.b, substr(p.data, h.s0 + idx.k * h.w0 + 2, 1)) - 1) ELSE 0 END) << 16) | ((CASE WHEN h.w0 > 3 THEN (instr(lut.b, substr(p.data, h.s0 + idx.k * h.w0 + 3, 1)) - 1) ELSE 0 END) << 24) | ((CASE WHEN h.w0 > 4 THEN (instr(lut.b, substr(p.data, h.s0 + idx.k * h.w0 + 4, 1)) - 1) ELSE 0 END) << 32) | ((CASE WHEN h.w0 > 5 THEN (instr(lut.b, substr(p.data, h.s0 + idx.k * h.w0 + 5, 1)) - 1) ELSE 0 END) << 40) | ((CASE WHEN h.w0 > 6 THEN (instr(lut.b, substr(p.data, h.s0 + idx.k * h.w0 + 6, 1)) - 1) ELSE 0 END) << 48) | ((CASE WHEN h.w0 > 7 THEN (instr(lut.b, substr(p.data, h.s0 + idx.k * h.w0 + 7, 1)) - 1) ELSE 0 END) << 56))) AS step,
  (h.b1 + ((CASE WHEN h.w1 > 0 THEN (instr(lut.b, substr(p.data, h.s1 + idx.k * h.w1, 1)) - 1) ELSE 0 END) | ((CASE WHEN h.w1 > 1 THEN (instr(lut.b, substr(p.data, h.s1 + idx.k * h.w1 + 1, 1)) - 1) ELSE 0 END) << 8) | ((CASE WHEN h.w1 > 2 THEN (instr(lut.b, substr(p.data, h.s1 + idx.k * h.w1 + 2, 1)) - 1) ELSE 0 END) << 16) | ((CASE WHEN h.w1 > 3 THEN (instr(lut.b, substr(p.data, h.s1 + idx.k * h.w1 + 3, 1)) - 1) ELSE 0 END) << 24) | ((CASE WHEN h.w1 > 4 THEN (instr(lut.b, substr(p.data, h.s1 + idx.k * h.w1 + 4, 1)) - 1) ELSE 0 END) << 32) | ((CASE WHEN h.w1 > 5 THEN (instr(lut.b, substr(p.data, h.s1 + idx.k * h.w1 + 5, 1)) - 1) ELSE 0 END) << 40) | ((CASE WHEN h.w1 > 6 THEN (instr(lut.b, substr(p.data, h.s1 + idx.k * h.w1 + 6, 1)) - 1) ELSE 0 END) << 48) | ((CASE WHEN h.w1 > 7 THEN (instr(lut.b, substr(p.data, h.s1 + idx.k * h.w1 + 7, 1)) - 1) ELSE 0 END) << 56))) AS microbatch,
  (h.b2 + ((CASE WHEN h.w2 > 0 THEN (instr(lut.b, substr(p.data, h.s2 + idx.k * h.w2, 1)) - 1) ELSE 0 END) | ((CASE WHEN h.w2 > 1 THEN (instr(lut.b, substr(p.data, h.s2 + idx.k * h.w2 + 1, 1)) - 1) ELSE 0 END) << 8) | ((CASE WHEN h.w2 > 2 THEN (instr(lut.b, substr(p.data, h.s2 + idx.k * h.w2 + 2, 1)) - 1) ELSE 0 END) << 16) | ((CASE WHEN h.w2 > 3 THEN (instr(lut.b, substr(p.data, h.s2 + idx.k * h.w2 + 3, 1)) - 1) ELSE 0 END) << 24) | ((CASE WHEN h.w2 > 4 THEN (instr(lut.b, substr(p.data, h.s2 + idx.k * h.w2 + 4, 1)) - 1) ELSE 0 END) << 32) | ((CASE WHEN h.w2 > 5 THEN (instr(lut.b, substr(p.data, h.s2 + idx.k * h.w2 + 5, 1)) - 1) ELSE 0 END) << 40) | ((CASE WHEN h.w2 > 6 THEN (instr(lut.b, substr(p.data, h.s2 + idx.k * h.w2 + 6, 1)) - 1) ELSE 0 END) << 48) | ((CASE WHEN h.w2 > 7 THEN (instr(lut.b, substr(p.data, h.s2 + idx.k * h.w2 + 7, 1)) - 1) ELSE 0 END) << 56))) AS layer,
  (h.b3 + ((CASE WHEN h.w3 > 0 THEN (instr(lut.b, substr(p.data, h.s3 + idx.k * h.w3, 1)) - 1) ELSE 0 END) | ((CASE WHEN h.w3 > 1 THEN (instr(lut.b, substr(p.data, h.s3 + idx.k * h.w3 + 1, 1)) - 1) ELSE 0 END) << 8) | ((CASE WHEN h.w3 > 2 THEN (instr(lut.b, substr(p.data, h.s3 + idx.k * h.w3 + 2, 1)) - 1) ELSE 0 END) << 16) | ((CASE WHEN h.w3 > 3 THEN (instr(lut.b, substr(p.data, h.s3 + idx.k * h.w3 + 3, 1)) - 1) ELSE 0 END) << 24) | ((CASE WHEN h.w3 > 4 THEN (instr(lut.b, substr(p.data, h.s3 + idx.k * h.w3 + 4, 1)) - 1) ELSE 0 END) << 32) | ((CASE WHEN h.w3 > 5 THEN (instr(lut.b, substr(p.data, h.s3 + idx.k * h.w3 + 5, 1)) - 1) ELSE 0 END) << 40) | ((CASE WHEN h.w3 > 6 THEN (instr(lut.b, substr(p.data, h.s3 + idx.k * h.w3 + 6, 1)) - 1) ELSE 0 END) << 48) | ((CASE WHEN h.w3 > 7 THEN (instr(lut.b, substr(p.data, h.s3 + idx.k * h.w3 + 7, 1)) - 1) ELSE 0 END) << 56))) AS seq,
  (h.b4 + ((CASE WHEN h.w4 > 0 THEN (instr(lut.b, substr(p.data, h.s4 + idx.k * h.w4, 1)) - 1) ELSE 0 END) | ((CASE WHEN h.w4 > 1 THEN (instr(lut.b, substr(p.data, h.s4 + idx.k * h.w4 + 1, 1)) - 1) ELSE 0 END) << 8) | ((CASE WHEN h.w4 > 2 THEN (instr(lut.b, substr(p.data, h.s4 + idx.k * h.w4 + 2, 1)) - 1) ELSE 0 END) << 16) | ((CASE WHEN h.w4 > 3 THEN (instr(lut.b, substr(p.data, h.s4 + idx.k * h.w4 + 3, 1)) - 1) ELSE 0 END) << 24) | ((CASE WHEN h.w4 > 4 THEN (instr(lut.b, substr(p.data, h.s4 + idx.k * h.w4 + 4, 1)) - 1) ELSE 0 END) << 32) | ((CASE WHEN h.w4 > 5 THEN (instr(lut.b, substr(p.data, h.s4 + idx.k * h.w4 + 5, 1)) - 1) ELSE 0 END) << 40) | ((CASE WHEN h.w4 > 6 THEN (instr(lut.b, substr(p.data, h.s4 + idx.k * h.w4 + 6, 1)) - 1) ELSE 0 END) << 48) | ((CASE WHEN h.w4 > 7 THEN (instr(lut.b, substr(p.data, h.s4 + idx.k * h.w4 + 7, 1)) - 1) ELSE 0 END) << 56))) AS kind,
  (h.b5 + ((CASE WHEN h.w5 > 0 THEN (instr(lut.b, substr(p.data, h.s5 + idx.k * h.w5, 1)) - 1) ELSE 0 END) | ((CASE WHEN h.w5 > 1 THEN (instr(lut.b, substr(p.data, h.s5 + idx.k * h.w5 + 1, 1)) - 1) ELSE 0 END) << 8) | ((CASE WHEN h.w5 > 2 THEN (instr(lut.b, substr(p.data, h.s5 + idx.k * h.w5 + 2, 1)) - 1) ELSE 0 END) << 16) | ((CASE WHEN h.w5 > 3 THEN (instr(lut.b, substr(p.data, h.s5 + idx.k * h.w5 + 3, 1)) - 1) ELSE 0 END) << 24) | ((CASE WHEN h.w5 > 4 THEN (instr(lut.b, substr(p.data, h.s5 + idx.k * h.w5 + 4, 1)) - 1) ELSE 0 END) << 32) | ((CASE WHEN h.w5 > 5 THEN (instr(lut.b, substr(p.data, h.s5 + idx.k * h.w5 + 5, 1)) - 1) ELSE 0 END) << 40) | ((CASE WHEN h.w5 > 6 THEN (instr(lut.b, substr(p.data, h.s5 + idx.k * h.w5 + 6, 1)) - 1) ELSE 0 END) << 48) | ((CASE WHEN h.w5 > 7 THEN (instr(lut.b, substr(p.data, h.s5 + idx.k * h.w5 + 7, 1)) - 1) ELSE 0 END) << 56))) AS name,
  (h.b6 + ((CASE WHEN h.w6 > 0 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6, 1)) - 1) ELSE 0 END) | ((CASE WHEN h.w6 > 1 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6 + 1, 1)) - 1) ELSE 0 END) << 8) | ((CASE WHEN h.w6 > 2 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6 + 2, 1)) - 1) ELSE 0 END) << 16) | ((CASE WHEN h.w6 > 3 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6 + 3, 1)) - 1) ELSE 0 END) << 24) | ((CASE WHEN h.w6 > 4 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6 + 4, 1)) - 1) ELSE 0 END) << 32) | ((CASE WHEN h.w6 > 5 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6 + 5, 1)) - 1) ELSE 0 END) << 40) | ((CASE WHEN h.w6 > 6 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6 + 6, 1)) - 1) ELSE 0 END) << 48) | ((CASE WHEN h.w6 > 7 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6 + 7, 1)) - 1) ELSE 0 END) << 56))) AS begin_ns,
  (h.b6 + ((CASE WHEN h.w6 > 0 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6, 1)) - 1) ELSE 0 END) | ((CASE WHEN h.w6 > 1 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6 + 1, 1)) - 1) ELSE 0 END) << 8) | ((CASE WHEN h.w6 > 2 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6 + 2, 1)) - 1) ELSE 0 END) << 16) | ((CASE WHEN h.w6 > 3 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6 + 3, 1)) - 1) ELSE 0 END) << 24) | ((CASE WHEN h.w6 > 4 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6 + 4, 1)) - 1) ELSE 0 END) << 32) | ((CASE WHEN h.w6 > 5 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6 + 5, 1)) - 1) ELSE 0 END) << 40) | ((CASE WHEN h.w6 > 6 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6 + 6, 1)) - 1) ELSE 0 END) << 48) | ((CASE WHEN h.w6 > 7 THEN (instr(lut.b, substr(p.data, h.s6 + idx.k * h.w6 + 7, 1)) - 1) ELSE 0 END) << 56))) + (h.b7 + ((CASE WHEN h.w7 > 0 THEN (instr(lut.b, substr(p.data, h.s7 + idx.k * h.w7, 1)) - 1) ELSE 0 END) | ((CASE WHEN h.w7 > 1 THEN (instr(lut.b, substr(p.data, h.s7 + idx.k * h.w7 + 1, 1)) - 1) ELSE 0 END) << 8) | ((CASE WHEN h.w7 > 2 THEN (instr(lut.b, substr(p.data, h.s7 + idx.k * h.w7 + 2, 1)) - 1) ELSE 0 END) << 16) | ((CASE WHEN h.w7 > 3 THEN (instr(lut.b, substr(p.data, h.s7 + idx.k * h.w7 + 3, 1)) - 1) ELSE 0 END) << 24) | ((CASE WHEN h.w7 > 4 THEN (instr(lut.b, substr(p.data, h.s7 + idx.k * h.w7 + 4, 1)) - 1) ELSE 0 END) << 32) | ((CASE WHEN h.w7 > 5 THEN (instr(lut.b, substr(p.data, h.s7 + idx.k * h.w7 + 5, 1)) - 1) ELSE 0 END) << 40) | ((CASE WHEN h.w7 > 6 THEN (instr(lut.b, substr(p.data, h.s7 + idx.k * h.w7 + 6, 1)) - 1) ELSE 0 END) << 48) | ((CASE WHEN h.w7 > 7 THEN (instr(lut.b, substr(p.data, h.s7 + idx.k * h.w7 + 7, 1)) - 1) ELSE 0 END) << 56))) AS end_ns,
  (h.b8 + ((CASE WHEN h.w8 > 0 THEN (instr(lut.b, substr(p.data, h.s8 + idx.k * h.w8, 1)) - 1) ELSE 0 END) | ((CASE WHEN h.w8 > 1 THEN (instr(lut.b, substr(p.data, h.s8 + idx.k * h.w8 + 1, 1)) - 1) ELSE 0 END) << 8) | ((CASE WHEN h.w8 > 2 THEN (instr(lut.b, substr(p.data, h.s8 + idx.k * h.w8 + 2, 1)) - 1) ELSE 0 END) << 16) | ((CASE WHEN h.w8 > 3 THEN (instr(lut.b, substr(p.data, h.s8 + idx.k * h.w8 + 3, 1)) - 1) ELSE 0 END) << 24) | ((CASE WHEN h.w8 > 4 THEN (instr(lut.b, substr(p.data, h.s8 + idx.k * h.w8 + 4, 1)) - 1) ELSE 0 END) << 32) | ((CASE WHEN h.w8 > 5 THEN (instr(lut.b, substr(p.data, h.s8 + idx.k * h.w8 + 5, 1)) - 1) ELSE 0 END) << 40) | ((CASE WHEN h.w8 > 6 THEN (instr(lut.b, substr(p.data, h.s8 + idx.k * h.w8 + 6, 1)) - 1) ELSE 0 END) << 48) | ((CASE WHEN h.w8 > 7 THEN (instr(lut.b, substr(p.data, h.s8 + idx.k * h.w8 + 7, 1)) - 1) ELSE 0 END) << 56))) AS bytes,
  (h.b9 + ((CASE WHEN h.w9 > 0 THEN (instr(lut.b, substr(p.data, h.s9 + idx.k * h.w9, 1)) - 1) ELSE 0 END) | ((CASE WHEN h.w9 > 1 THEN (instr(lut.b, substr(p.data, h.s9 + idx.k * h.w9 + 1, 1)) - 1) ELSE 0 END) << 8) | ((CASE WHEN h.w9 > 2 THEN (instr(lut.b, substr(p.data, h.s9 + idx.k * h.w9 + 2, 1)) - 1) ELSE 0 END) << 16) | ((CASE WHEN h.w9 > 3 THEN (instr(lut.b, substr(p.data, h.s9 + idx.k * h.w9 + 3, 1)) - 1) ELSE 0 END) << 24) | ((CASE WHEN h.w9 > 4 THEN (instr(lut.b, substr(p.data, h.s9 + idx.k * h.w9 + 4, 1)) - 1) ELSE 0 END) << 32) | ((CASE WHEN h.w9 > 5 THEN (instr(lut.b, substr(p.data, h.s9 + idx.k * h.w9 + 5, 1)) - 1) ELSE 0 END) << 40) | ((CASE WHEN h.w9 > 6 THEN (instr(lut.b, substr(p.data, h.s9 + idx.k * h.w9 + 6, 1)) - 1) ELSE 0 END) << 48) | ((CASE WHEN h.w9 > 7 THEN (instr(lut.b, substr(p.data, h.s9 + idx.k * h.w9 + 7, 1)) - 1) ELSE 0 END) << 56))) AS device,
  (h.b10 + ((CASE WHEN h.w10 > 0 THEN (instr(lut.b, substr(p.data, h.s10 + idx.k * h.w10, 1)) - 1) ELSE 0 END) | ((CASE WHEN h.w10 > 1 THEN (instr(lut.b, substr(p.data, h.s10 + idx.k * h.w10 + 1, 1)) - 1) ELSE 0 END) << 8) | ((CASE WHEN h.w10 > 2 THEN (instr(lut.b, substr(p.data, h.s10 + idx.k * h.w10 + 2, 1)) - 1) ELSE 0 END) << 16) | ((CASE WHEN h.w10 > 3 THEN (instr(lut.b, substr(p.data, h.s10 + idx.k * h.w10 + 3, 1)) - 1) ELSE 0 END) << 24) | ((CASE WHEN h.w10 > 4 THEN (instr(lut.b, substr(p.data, h.s10 + idx.k * h.w10 + 4, 1)) - 1) ELSE 0 END) << 32) | ((CASE WHEN h.w10 > 5 THEN (instr(lut.b, substr(p.data, h.s10 + idx.k * h.w10 + 5, 1)) - 1) ELSE 0 END) << 40) | ((CASE WHEN h.w10 > 6 THEN (instr(lut.b, substr(p.data, h.s10 + idx.k * h.w10 + 6, 1)) - 1) ELSE 0 END) << 48) | ((CASE WHEN h.w10 > 7 THEN (instr(lut.b, substr(p.data, h.s10 + idx.k * h.w10 + 7, 1)) - 1) ELSE 0 END) << 56))) AS stream
FROM h JOIN idx ON idx.k < h.n JOIN event_packs p ON p.rowid = h.pid, lut
) e JOIN event_kinds k ON k.id = e.kind JOIN event_names n ON n.id = e.name;
