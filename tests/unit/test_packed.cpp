// Packed events (runfile/packed.hpp; docs/schema.md, "Packed events"): the blob layout round
// trips, the sqlite3 views decode the same values as C++, loading orders events as the row
// layout's sort did, and a schema-3 store written by main's culprit migrates with its events.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "culprit/storage/db.hpp"
#include "culprit/storage/ingest.hpp"
#include "culprit/storage/run_data.hpp"
#include "culprit/storage/store.hpp"
#include "runfile/packed.hpp"
#include "stepclock/runfile.hpp"

namespace fs = std::filesystem;
using namespace culprit::storage;

namespace {

std::string temp(const std::string& name) {
  const std::string path = (fs::temp_directory_path() / ("culprit_unit_packed_" + name)).string();
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(path + s);
  return path;
}

auto key(const runfile::EventRecord& e) {
  return std::make_tuple(e.rank, e.step, e.microbatch, e.layer, e.seq, static_cast<int>(e.kind),
                         e.name, e.begin_ns, e.end_ns, e.bytes, e.device, e.stream);
}

// Events of `ranks` ranks with values that need every width, written rank-interleaved and
// out of time order (as a merge of per-rank buffers may be).
// With `extreme`, one more event spans the whole int64 range: its end - begin overflows, which
// only C++ decodes (SQL's sum turns into a float there).
std::vector<runfile::EventRecord> awkward_events(int ranks, bool extreme = true) {
  std::mt19937_64 rng(17);
  std::vector<runfile::EventRecord> events;
  for (int step = 3; step >= -1; --step) {
    for (int rank = ranks - 1; rank >= 0; --rank) {
      for (int i = 0; i < 5; ++i) {
        runfile::EventRecord e;
        e.rank = rank;
        e.step = step;
        e.microbatch = i == 0 ? -1 : 70000;
        e.layer = i;
        e.seq = i == 3 ? 1 << 30 : -1;
        e.kind = static_cast<runfile::EventKind>(i % 4);
        e.name = static_cast<std::uint16_t>(i % 3);
        e.begin_ns = 1'700'000'000'000'000'000LL + static_cast<std::int64_t>(rng() % 1000000) +
                     step * 1'000'000'000LL;
        e.end_ns = e.begin_ns + (i == 2 ? -5 : static_cast<std::int64_t>(rng() % 100000));
        e.bytes = i == 4 ? std::numeric_limits<std::int64_t>::max() : 0;
        e.device = rank == 0 ? std::int16_t{-1} : std::int16_t{7};
        e.stream = static_cast<std::int16_t>(-i);
        events.push_back(e);
      }
    }
  }
  if (extreme) {
    runfile::EventRecord e;
    e.rank = 0;
    e.begin_ns = std::numeric_limits<std::int64_t>::min();
    e.end_ns = std::numeric_limits<std::int64_t>::max();
    e.bytes = std::numeric_limits<std::int64_t>::min();
    events.push_back(e);
  }
  return events;
}

// A store holding one run (id 1) of one configuration, for copy_run.
std::unique_ptr<Db> store_with_run(const std::string& path) {
  auto store = open_store(path);
  store->exec(
      "INSERT INTO experiments (id, name, manifest_path, manifest_text, manifest_hash, "
      "created_at) VALUES (1, 'e', 'm', '', 'h', 'now');"
      "INSERT INTO configurations (id, experiment_id, label, factor, level_json, backend, "
      "ranks, resolved_json, config_hash) VALUES (1, 1, 'b', 'f', '0', 'sim', 2, '{}', 'c');"
      "INSERT INTO runs (id, experiment_id, config_id, repetition, position, seed, status) "
      "VALUES (1, 1, 1, 0, 0, 1, 'ok');");
  return store;
}

// A run file of awkward_events(2) at temp(name + ".run.db"), then broken by the SQL `damage`.
std::string damaged_run_file(const std::string& name, const std::string& damage) {
  const std::string path = temp(name + ".run.db");
  stepclock::RunFileContents c;
  c.names = {"step", "gemm.fwd", "allreduce"};
  c.events = awkward_events(2);
  stepclock::write_run_file(path, c);
  Db file(path);
  file.exec(damage);
  return path;
}

// copy_run of the run file at `path` into a store (temp(store_name + ".db"), removed after)
// throws an error that contains `expected`.
void check_copy_refused(const std::string& path, const std::string& store_name,
                        const std::string& expected) {
  const std::string store_path = temp(store_name + ".db");
  {
    auto store = store_with_run(store_path);
    AttachedRunFile attached(*store, path);
    Transaction tx(*store);
    CHECK_THROWS_WITH(copy_run(*store, &attached, 1), doctest::Contains(expected.c_str()));
  }
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(store_path + s);
}

// Rewrites the run file at `path` as format 2 wrote it: its events as rows, no packs.
void to_format2(const std::string& path) {
  Db file(path);
  file.exec(
      "INSERT INTO event_rows SELECT e.rank, e.step, e.microbatch, e.layer, e.seq, k.id, n.id, "
      "e.begin_ns, e.end_ns, e.bytes, e.device, e.stream FROM events e JOIN event_kinds k ON "
      "k.name = e.kind JOIN event_names n ON n.name = e.name;"
      "DROP VIEW events; DROP TABLE event_packs;"
      "UPDATE meta SET value = '2' WHERE key = 'format_version';");
}

}  // namespace

TEST_CASE("a pack round-trips every value, widths 0 to 8") {
  std::vector<runfile::EventRecord> events = awkward_events(1);
  const auto data = runfile::pack_events(events);
  const runfile::PackReader pack(data.data(), data.size(),
                                 static_cast<std::int64_t>(events.size()));
  CHECK(pack.width(runfile::kPackDevice) == 0);  // one rank: constant
  CHECK(pack.width(runfile::kPackKind) == 1);
  CHECK(pack.width(runfile::kPackBytes) == 8);
  std::vector<runfile::EventRecord> back;
  runfile::unpack_events(pack, 0, back);
  REQUIRE(back.size() == events.size());
  for (std::size_t i = 0; i < events.size(); ++i) CHECK(key(back[i]) == key(events[i]));

  SUBCASE("a damaged pack is refused, saying why") {
    auto shorter = data;
    shorter.pop_back();
    CHECK_THROWS_WITH_AS(runfile::PackReader(shorter.data(), shorter.size(),
                                             static_cast<std::int64_t>(events.size())),
                         doctest::Contains("bytes, not"), std::invalid_argument);
    auto other = data;
    other[0] = 9;
    CHECK_THROWS_WITH_AS(runfile::PackReader(other.data(), other.size(), 1),
                         doctest::Contains("layout 1"), std::invalid_argument);
  }
}

TEST_CASE("pack_by_rank keeps each rank's events in (step, begin_ns) order") {
  const auto events = awkward_events(3);
  const auto packs = runfile::pack_by_rank(events);
  REQUIRE(packs.size() == 3);
  std::size_t total = 0;
  for (std::size_t r = 0; r < packs.size(); ++r) {
    CHECK(packs[r].rank == static_cast<int>(r));
    const runfile::PackReader pack(packs[r].data.data(), packs[r].data.size(), packs[r].count);
    std::vector<runfile::EventRecord> back;
    runfile::unpack_events(pack, packs[r].rank, back);
    CHECK(std::is_sorted(back.begin(), back.end(), [](const auto& a, const auto& b) {
      return std::tie(a.step, a.begin_ns) < std::tie(b.step, b.begin_ns);
    }));
    total += back.size();
  }
  CHECK(total == events.size());
}

TEST_CASE("run files: the events view decodes the packs as C++ does; loading sorts as before") {
  const std::string path = temp("view.run.db");
  stepclock::RunFileContents c;
  c.names = {"step", "gemm.fwd", "allreduce"};
  c.events = awkward_events(3, false);
  c.meta = {{"ranks", "3"}};
  stepclock::write_run_file(path, c);
  {
    Db file(path, Db::Mode::kReadOnly);
    CHECK(file.query_text("SELECT value FROM meta WHERE key = 'format_version'").value() == "3");
    CHECK(file.query_int("SELECT count(*) FROM event_rows").value() == 0);
    CHECK(file.query_int("SELECT count(*) FROM event_packs").value() == 3);
    Statement view(file, std::string("SELECT ") + runfile::kEventColumns +
                             " FROM (SELECT e.rank, e.step, e.microbatch, e.layer, e.seq, k.id "
                             "AS kind, n.id AS name, e.begin_ns, e.end_ns, e.bytes, e.device, "
                             "e.stream FROM events e JOIN event_kinds k ON k.name = e.kind JOIN "
                             "event_names n ON n.name = e.name)");
    std::vector<decltype(key(c.events[0]))> from_sql;
    while (view.step()) {
      const runfile::EventRecord e = read_event_record(view);
      from_sql.push_back(key(e));
    }
    std::vector<decltype(key(c.events[0]))> expected;
    for (const auto& e : c.events) expected.push_back(key(e));
    std::sort(from_sql.begin(), from_sql.end());
    std::sort(expected.begin(), expected.end());
    CHECK(from_sql == expected);
  }
  // What loading did with rows: a stable sort by (step, rank, begin_ns) of the written order.
  auto written = c.events;
  std::stable_sort(written.begin(), written.end(), [](const auto& a, const auto& b) {
    return std::tie(a.step, a.rank, a.begin_ns) < std::tie(b.step, b.rank, b.begin_ns);
  });
  const RunData run = load_run_file(path);
  REQUIRE(run.events.size() == written.size());
  for (std::size_t i = 0; i < written.size(); ++i) {
    const Event& e = run.events[i];
    const auto& w = written[i];
    CHECK(std::make_tuple(e.rank, e.step, e.layer, e.begin_ns, e.end_ns, e.bytes, e.name) ==
          std::make_tuple(w.rank, w.step, w.layer, w.begin_ns, w.end_ns, w.bytes, w.name));
  }
  CHECK(load_run_file(path, EventSelection::kStepsOnly).events.size() ==
        static_cast<std::size_t>(std::count_if(c.events.begin(), c.events.end(), [](auto& e) {
          return e.kind == runfile::EventKind::kStep;
        })));
  fs::remove(path);
}

TEST_CASE("the run file's events view holds packed_events_select verbatim") {
  const std::string view = runfile::schema_statements("events");
  CHECK(view.find(runfile::packed_events_select("event_packs", "")) != std::string::npos);
}

TEST_CASE("column_definitions: a run-file table's columns from one on, each line with its comma") {
  CHECK(runfile::column_definitions("clock_models", "end_rtt_ns") ==
        "  end_rtt_ns     REAL NOT NULL,\n  exchanges      INTEGER NOT NULL,\n");
  CHECK(runfile::column_definitions("meta", "key") ==
        "  key   TEXT PRIMARY KEY,\n  value TEXT NOT NULL,\n");
  CHECK_THROWS_AS(runfile::column_definitions("clock_models", "nope"), std::logic_error);
  CHECK_THROWS_AS(runfile::column_definitions("clock_models", "rank_"), std::logic_error);
  CHECK_THROWS_AS(runfile::column_definitions("no_such_table", "rank"), std::logic_error);
}

TEST_CASE("event kinds read back from their names; an unknown name is compute") {
  for (int k = 0; k < runfile::kEventKindCount; ++k) {
    const auto kind = static_cast<runfile::EventKind>(k);
    CHECK(runfile::parse_event_kind(runfile::event_kind_name(kind)) == kind);
  }
  CHECK(std::string(runfile::event_kind_name(runfile::EventKind::kCollective)) == "collective");
  CHECK(runfile::parse_event_kind("gemm") == runfile::EventKind::kCompute);
}

TEST_CASE("a schema-3 store written by main's culprit migrates to packs, events unchanged") {
  const std::string path = temp("schema3.db");
  std::ifstream in(CULPRIT_TEST_DATA "/storage/schema3-store.sql");
  REQUIRE(in);
  std::stringstream sql;
  sql << in.rdbuf();
  auto text_rows = [](Db& db) {
    // The text view of both schemas: run_id, the integer columns, kind and name as text.
    std::vector<std::string> rows;
    Statement s(db,
                "SELECT run_id, rank, step, microbatch, layer, seq, kind, name, begin_ns, end_ns, "
                "bytes, device, stream FROM run_events ORDER BY run_id, rank, step, begin_ns, "
                "name");
    while (s.step()) {
      std::string row;
      for (int c = 0; c < 13; ++c) row += s.column_text(c) + "|";
      rows.push_back(row);
    }
    return rows;
  };
  std::vector<std::string> before;
  {
    Db old(path);
    // Schema 3 as the released (frozen) migrations build it, then the rows main's culprit wrote.
    for (int v = 0; v < 3; ++v) old.exec(store_migration(v));
    old.exec(sql.str());
    old.exec("PRAGMA user_version = 3");
    CHECK(schema_version(old) == 3);
    before = text_rows(old);
  }
  REQUIRE(before.size() == 512);
  {
    auto db = open_store(path);
    CHECK(schema_version(*db) == kStoreSchemaVersion);
    CHECK_FALSE(db->query_int("SELECT 1 FROM sqlite_master WHERE name = 'event_rows'"));
    CHECK(db->query_int("SELECT count(*) FROM run_event_packs").value() == 8);  // 2 runs x 4
    CHECK(text_rows(*db) == before);
    const RunData run = load_run(*db, 2);
    CHECK(run.events.size() == 256);
    CHECK(run.ranks == 4);
    CHECK(std::is_sorted(run.events.begin(), run.events.end(), [](auto& a, auto& b) {
      return std::tie(a.step, a.rank, a.begin_ns) < std::tie(b.step, b.rank, b.begin_ns);
    }));
    CHECK(db->query_text("PRAGMA integrity_check").value() == "ok");
    CHECK_FALSE(db->query_int("SELECT 1 FROM pragma_foreign_key_check LIMIT 1"));
  }
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(path + s);
}

TEST_CASE("a format-2 run file (rows, no packs) is still loaded and ingested into packs") {
  const std::string path = temp("format2.run.db");
  stepclock::RunFileContents c;
  c.names = {"step", "gemm.fwd", "allreduce"};
  c.events = awkward_events(2);
  c.meta = {{"ranks", "2"}};
  stepclock::write_run_file(path, c);
  to_format2(path);
  const RunData rows = load_run_file(path);
  REQUIRE(rows.events.size() == c.events.size());
  const std::string store_path = temp("format2.db");
  {
    auto store = store_with_run(store_path);
    {
      AttachedRunFile attached(*store, path);
      Transaction tx(*store);
      CHECK(copy_run(*store, &attached, 1) == static_cast<std::int64_t>(c.events.size()));
      tx.commit();
    }
    CHECK(store->query_int("SELECT count(*) FROM run_event_packs").value() == 2);
    const RunData packed = load_run(*store, 1);
    REQUIRE(packed.events.size() == rows.events.size());
    for (std::size_t i = 0; i < rows.events.size(); ++i) {
      const Event& a = rows.events[i];
      const Event& b = packed.events[i];
      CHECK(std::make_tuple(a.rank, a.step, a.seq, a.begin_ns, a.end_ns, a.bytes, a.name) ==
            std::make_tuple(b.rank, b.step, b.seq, b.begin_ns, b.end_ns, b.bytes, b.name));
    }
  }
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(store_path + s);
  fs::remove(path);
}

TEST_CASE("a run file with a damaged pack is refused at ingest, the store unchanged") {
  const std::string path = damaged_run_file(
      "damaged", "UPDATE event_packs SET data = substr(data, 1, length(data) - 1) WHERE rank = 1");
  check_copy_refused(path, "damaged", "event pack of rank 1");
  CHECK_THROWS_WITH(load_run_file(path), doctest::Contains("event pack of rank 1"));
  fs::remove(path);
}

// Found by fuzz_ingest: a step column whose base is past 32 bits was counted as one step by
// the loader's first pass and placed, narrowed, as another (a write past the events' end). The
// base is the column's 8 bytes after the layout, count and width bytes (packed.hpp).
TEST_CASE("a pack whose steps do not fit 32 bits is refused, naming rank and value") {
  const std::string path =
      damaged_run_file("wide_step",
                       "UPDATE event_packs SET data = substr(data, 1, 13) || X'0000000001000000' "
                       "|| substr(data, 22) WHERE rank = 1");
  for (const EventSelection selection : {EventSelection::kAll, EventSelection::kStepsOnly}) {
    std::string what;
    try {
      load_run_file(path, selection);
    } catch (const std::exception& e) {
      what = e.what();
    }
    CHECK_MESSAGE(what.find("event pack of rank 1: step 4294967") != std::string::npos, what);
    CHECK_MESSAGE(what.find("does not fit 32 bits") != std::string::npos, what);
  }
  // The run-file library's own decoding (read_run_file_events) refuses it too.
  Db file(path, Db::Mode::kReadOnly);
  Statement pack(file, "SELECT events, data FROM event_packs WHERE rank = 1");
  REQUIRE(pack.step());
  const auto blob = pack.column_blob(1);
  const runfile::PackReader reader(blob.data(), blob.size(), pack.column_int(0));
  std::vector<runfile::EventRecord> events;
  CHECK_THROWS_WITH_AS(runfile::unpack_events(reader, 1, events), doctest::Contains("step 4294967"),
                       std::invalid_argument);
  fs::remove(path);
}

// The rows of a format-2 file (the Python writer's) were narrowed to 32 bits without a word.
TEST_CASE("a format-2 row whose step does not fit 32 bits is refused, naming file and value") {
  const std::string path = damaged_run_file("wide_row_step", "SELECT 1");
  to_format2(path);
  std::int64_t rows = 0;  // the last row is the damaged one
  {
    Db file(path);
    file.exec(
        "UPDATE event_rows SET step = 4294967296 WHERE rowid = (SELECT max(rowid) FROM "
        "event_rows)");
    rows = file.query_int("SELECT count(*) FROM event_rows").value();
  }
  CHECK_THROWS_WITH_AS(load_run_file(path),
                       doctest::Contains(("run file " + path +
                                          ": event row: column step holds 4294967296, which does "
                                          "not fit 32 bits")
                                             .c_str()),
                       std::invalid_argument);
  check_copy_refused(path, "wide_row_step",
                     "bad run file " + path + ": event row " + std::to_string(rows) +
                         ": column step holds 4294967296, which does not fit 32 bits");
  fs::remove(path);
}

TEST_CASE("a rank with more than kPackMaxEvents events takes several packs, read in order") {
  const std::string path = temp("long.run.db");
  stepclock::RunFileContents c;
  c.names = {"step", "gemm.fwd"};
  const std::size_t n = 2 * runfile::kPackMaxEvents + 5;
  for (int rank = 0; rank < 2; ++rank) {
    for (std::size_t i = 0; i < n; ++i) {
      runfile::EventRecord e;
      e.rank = rank;
      e.step = static_cast<std::int32_t>(i / 100);
      e.name = i % 100 == 0 ? 0 : 1;
      e.kind = i % 100 == 0 ? runfile::EventKind::kStep : runfile::EventKind::kCompute;
      e.begin_ns = static_cast<std::int64_t>(i) * 1000 + rank;
      e.end_ns = e.begin_ns + 500;
      c.events.push_back(e);
    }
  }
  stepclock::write_run_file(path, c);
  {
    Db file(path, Db::Mode::kReadOnly);
    CHECK(file.query_int("SELECT count(*) FROM event_packs").value() == 6);
    CHECK(file.query_int("SELECT max(events) FROM event_packs").value() ==
          static_cast<std::int64_t>(runfile::kPackMaxEvents));
    CHECK(file.query_int("SELECT count(*) FROM events").value() ==
          static_cast<std::int64_t>(2 * n));
    CHECK(file.query_int("SELECT max(end_ns) FROM events WHERE rank = 1").value() ==
          static_cast<std::int64_t>(n - 1) * 1000 + 1 + 500);
  }
  const RunData run = load_run_file(path);
  REQUIRE(run.events.size() == 2 * n);
  CHECK(std::is_sorted(run.events.begin(), run.events.end(), [](auto& a, auto& b) {
    return std::tie(a.step, a.rank, a.begin_ns) < std::tie(b.step, b.rank, b.begin_ns);
  }));
  const std::string store_path = temp("long.db");
  {
    auto store = store_with_run(store_path);
    {
      AttachedRunFile attached(*store, path);
      Transaction tx(*store);
      CHECK(copy_run(*store, &attached, 1) == static_cast<std::int64_t>(2 * n));
      tx.commit();
    }
    const RunData stored = load_run(*store, 1);
    REQUIRE(stored.events.size() == run.events.size());
    for (std::size_t i = 0; i < run.events.size(); ++i) {
      CHECK(std::tie(stored.events[i].rank, stored.events[i].begin_ns) ==
            std::tie(run.events[i].rank, run.events[i].begin_ns));
    }
  }
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(store_path + s);
  fs::remove(path);
}

namespace {

// Every row the store holds of run 1, one line each, in a fixed order.
std::string run_rows(Db& store) {
  std::string out;
  Statement rows(store,
                 "SELECT 'meta', key, value, '', '' FROM run_meta WHERE run_id = 1 "
                 "UNION ALL SELECT 'echo', json, '', '', '' FROM run_config_echo WHERE run_id = 1 "
                 "UNION ALL SELECT 'prov', rank, key, value, '' FROM provenance WHERE run_id = 1 "
                 "UNION ALL SELECT 'clock', rank, host, ref_ns, offset_ns || ' ' || drift_ppm || "
                 "' ' || uncertainty_ns || ' ' || start_rtt_ns || ' ' || end_rtt_ns || ' ' || "
                 "exchanges FROM clock_models WHERE run_id = 1 "
                 "UNION ALL SELECT 'name', id, name, '', '' FROM run_event_names WHERE run_id = 1 "
                 "UNION ALL SELECT * FROM (SELECT 'pack', rank, events, hex(data), '' FROM "
                 "run_event_packs WHERE run_id = 1 ORDER BY id) ORDER BY 1, 2, 3");
  while (rows.step()) {
    for (int c = 0; c < 5; ++c) out += std::string(rows.column_text(c)) + "|";
    out += "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("contents ingested from memory give the rows their run file gives") {
  stepclock::RunFileContents c;
  c.names = {"step", "gemm.fwd", "allreduce"};
  c.events = awkward_events(3);
  c.meta = {{"ranks", "3"}, {"warmup_steps", "1"}, {"ranks", "3 again"}};
  c.provenance = {{-1, "host", "a"}, {2, "gpu", "x"}, {2, "gpu", "y"}};
  c.clocks = {{0, "h0", 5, 0.5, 1.25, 3.0, 10.0, 12.0, 7},
              {1, "h1", 9, -2.5, 0.0, 1.0, 2.0, 3.0, 8}};
  c.config_json = R"({"a": "b\"c"})";
  const std::string path = temp("contents.run.db");
  stepclock::write_run_file(path, c);
  const std::string by_file = temp("contents_file.db"), by_memory = temp("contents_memory.db");
  std::string file_rows, memory_rows;
  {
    auto store = store_with_run(by_file);
    AttachedRunFile attached(*store, path);
    Transaction tx(*store);
    CHECK(copy_run(*store, &attached, 1) == static_cast<std::int64_t>(c.events.size()));
    tx.commit();
    file_rows = run_rows(*store);
  }
  {
    auto store = store_with_run(by_memory);
    Transaction tx(*store);
    CHECK(copy_run(*store, &c, 1) == static_cast<std::int64_t>(c.events.size()));
    tx.commit();
    memory_rows = run_rows(*store);
  }
  CHECK(file_rows.find("meta|ranks|3 again|") != std::string::npos);
  CHECK(file_rows.find("meta|format_version|3|") != std::string::npos);
  CHECK(file_rows.find("pack|2|") != std::string::npos);
  CHECK(memory_rows == file_rows);

  SUBCASE("contents the writer refuses are refused, nothing copied") {
    auto store = open_store(by_memory);
    stepclock::RunFileContents bad = c;
    bad.names.push_back("gemm.fwd");
    {
      Transaction tx(*store);
      CHECK_THROWS_WITH(copy_run(*store, &bad, 1),
                        doctest::Contains("event name 'gemm.fwd' is interned twice"));
    }
    CHECK_THROWS_WITH(stepclock::write_run_file(temp("bad.run.db"), bad),
                      doctest::Contains("interned twice"));
    bad = c;
    bad.events[0].name = 3;
    {
      Transaction tx(*store);
      CHECK_THROWS_WITH(copy_run(*store, &bad, 1),
                        doctest::Contains("event name index 3 is not interned"));
    }
    bad = c;
    bad.clocks.push_back(c.clocks[0]);
    {
      Transaction tx(*store);
      CHECK_THROWS_WITH(copy_run(*store, &bad, 1), doctest::Contains("two clock models of rank 0"));
    }
    CHECK(run_rows(*store) == memory_rows);
  }
  for (const std::string& p : {by_file, by_memory}) {
    for (const char* s : {"", "-wal", "-shm"}) fs::remove(p + s);
  }
  fs::remove(path);
}

namespace {

// What copy_run shows its observer, as text: the clock models, then each step event.
class Recorder : public IngestObserver {
 public:
  void clock_models(const std::vector<ClockModel>& clocks) override {
    for (const ClockModel& c : clocks) {
      seen << "clock " << c.rank << ' ' << c.ref_ns << ' ' << c.offset_ns << ' ' << c.drift_ppm
           << '\n';
    }
  }
  void step_event(const runfile::EventRecord& e) override {
    seen << "step " << e.rank << ' ' << e.step << ' ' << e.begin_ns << ' ' << e.end_ns << '\n';
  }
  std::ostringstream seen;
};

}  // namespace

TEST_CASE("copy_run shows the step events it writes, as the stored run holds them") {
  stepclock::RunFileContents c;
  c.names = {"step", "gemm.fwd", "allreduce"};
  c.events = awkward_events(3, false);
  c.meta = {{"ranks", "3"}};
  c.clocks = {{0, "h0", 5, 0.5, 1.25, 3.0, 10.0, 12.0, 7},
              {2, "h2", 9, -2.5, 0.0, 1.0, 2.0, 3.0, 8}};
  const std::string path = temp("observed.run.db");
  stepclock::write_run_file(path, c);
  const std::string by_file = temp("observed_file.db"), by_memory = temp("observed_memory.db");
  Recorder from_file, from_memory;
  std::string expected;
  {
    auto store = store_with_run(by_file);
    {
      AttachedRunFile attached(*store, path);
      Transaction tx(*store);
      copy_run(*store, &attached, 1, &from_file);
      tx.commit();
    }
    // The oracle: the step events read back from the store, in rank then step order.
    std::ostringstream text;
    text << "clock 0 5 0.5 1.25\nclock 2 9 -2.5 0\n";
    std::vector<Event> steps;
    for (const Event& e : load_run(*store, 1).events) {
      if (e.kind == EventKind::kStep) steps.push_back(e);
    }
    std::stable_sort(steps.begin(), steps.end(),
                     [](const Event& a, const Event& b) { return a.rank < b.rank; });
    for (const Event& e : steps) {
      text << "step " << e.rank << ' ' << e.step << ' ' << e.begin_ns << ' ' << e.end_ns << '\n';
    }
    expected = text.str();
  }
  {
    auto store = store_with_run(by_memory);
    Transaction tx(*store);
    copy_run(*store, &c, 1, &from_memory);
  }
  // awkward_events: kind step is every fourth event (i == 3), on each of 3 ranks x 5 steps.
  CHECK(std::count(expected.begin(), expected.end(), '\n') == 2 + 15);
  CHECK(from_file.seen.str() == expected);
  CHECK(from_memory.seen.str() == expected);
  for (const std::string& p : {by_file, by_memory}) {
    for (const char* s : {"", "-wal", "-shm"}) fs::remove(p + s);
  }
  fs::remove(path);
}

TEST_CASE("a run file whose pack names an event name it lacks is refused at ingest") {
  const std::string path = damaged_run_file("unnamed", "DELETE FROM event_names WHERE id = 2");
  check_copy_refused(
      path, "unnamed",
      "bad run file " + path + ": event pack of rank 0: event name id 2 is not in the names table");
  fs::remove(path);
}
