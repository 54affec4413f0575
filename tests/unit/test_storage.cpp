#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "culprit/common/sha256.hpp"
#include "culprit/errors.hpp"
#include "culprit/storage/run_data.hpp"
#include "culprit/storage/store.hpp"
#include "culprit/storage/writer_lock.hpp"
#include "stepclock/runfile.hpp"
#include "temp_store.hpp"

namespace fs = std::filesystem;
using namespace culprit::storage;

TEST_CASE("open_store creates the schema once and reopens without migrating again") {
  auto path = (fs::temp_directory_path() / "culprit_unit_store.db").string();
  fs::remove(path);
  {
    auto db = open_store(path);
    CHECK(schema_version(*db) == kStoreSchemaVersion);
    CHECK(db->query_text("PRAGMA journal_mode").value() == "wal");
    CHECK(db->query_int("PRAGMA foreign_keys").value() == 1);
    db->exec(
        "INSERT INTO experiments (name, manifest_path, manifest_text, manifest_hash, created_at) "
        "VALUES ('e', 'm.toml', '', 'h', 'now')");
  }
  auto db = open_store(path);
  CHECK(db->query_int("SELECT count(*) FROM experiments").value() == 1);
  CHECK_THROWS_AS(
      db->exec("INSERT INTO runs (experiment_id, config_id, repetition, position, seed, "
               "status) VALUES (1, 99, 0, 0, 1, 'ok')"),
      std::runtime_error);  // foreign key enforced
  fs::remove(path);
  fs::remove(path + "-wal");
  fs::remove(path + "-shm");
}

// A store that has run a migration never runs it again, so editing a released one would leave
// stores built before and after the edit with different schemas under one version number. The
// hashes are of the migrations as released; a new version appends its own.
TEST_CASE("released store migrations are never edited") {
  const std::vector<std::string> released = {
      "87f04cbde82972d14d1cf590b7ba09c80fd44cda2d1cceb83881ac7ae4e086ae",
      "25541dcfaf05118e8e215ede9ed487d521431b104237bfc34293e4ab4b52145d",
      "4709fb35371ff985519c16e1fc86135a616163c51c7e1cd73177fa3e09868399",
      "ebbe3606800080da34b46190f7cc04b497deffbe5f35958bb8ecc108868e30d7",
      // 5: experiment_settings (issue 33)
      "a9db37de65e7574d52b1b8c85a21f8894d1ffc0f172ec4ff323f4e54fd40b977",
      // 6: attached evidence (run_kernel_counters, run_telemetry; issue 35)
      "34d07c0c7823322370f1d7ac85f3da39e91f9281ed5af6fce1aa2709e90f5c91",
      // 7: experiment_settings.sampling (issue 37)
      "ac73e5fdf45852622020309d1030a3d8319c54f7bea8c85dd4c8ffca4636d221"};
  REQUIRE(released.size() == static_cast<std::size_t>(kStoreSchemaVersion));
  for (int v = 0; v < kStoreSchemaVersion; ++v) {
    CAPTURE(v);
    CHECK(culprit::sha256_hex(store_migration(v)) == released[static_cast<std::size_t>(v)]);
  }
}

TEST_CASE("SQLite keeps statement journals in memory: no temporary file per changed page") {
  // Taken at static initialisation, before the first connection; false would mean a
  // connection opened earlier and every statement writes a 64 KiB page to /var/tmp again.
  CHECK(statement_journals_in_memory());
}

// Issue 36: one statement inside a transaction that changes more than 1 MiB of the store's
// existing pages (the copy of a 5,000-rank run's event packs did) made SQLite spill its
// statement journal in 1 MiB writes, which its Unix layer cuts to 0 bytes: SQLITE_FULL,
// "database or disk is full", on an empty disk. 40 pages of 64 KiB changed by one UPDATE after
// a first change in the same transaction; failed before the fix (db.cpp says why).
TEST_CASE("a statement that changes megabytes of existing pages inside a transaction stores") {
  culprit::testing::TempStore temp("stmt_journal");
  auto db = open_store(temp.path);
  db->exec("CREATE TABLE blobs (id INTEGER PRIMARY KEY, x BLOB NOT NULL)");
  db->exec(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40) "
      "INSERT INTO blobs (x) SELECT randomblob(60000) FROM n");
  Transaction tx(*db);
  db->exec("INSERT INTO blobs (x) VALUES (x'00')");
  Statement update(*db, "UPDATE blobs SET x = randomblob(60000) WHERE id <= 40");
  update.purpose("rewriting every blob");
  CHECK_NOTHROW(update.run());
  tx.commit();
  CHECK(db->query_int("SELECT count(*) FROM blobs WHERE length(x) = 60000").value() == 40);
}

// SQLITE_FULL with the disk far from full is an SQLite limit, said as such: the launcher
// stops a sweep on "database or disk is full", and a user reading it looks at the disk.
TEST_CASE("SQLITE_FULL with free space is reported as an SQLite limit, with the purpose") {
  culprit::testing::TempStore temp("sqlite_full");
  auto db = open_store(temp.path);
  db->exec("CREATE TABLE blobs (x BLOB NOT NULL)");
  const auto pages = db->query_int("PRAGMA page_count").value();
  db->exec("PRAGMA max_page_count = " + std::to_string(pages + 1));
  Statement insert(*db, "INSERT INTO blobs (x) SELECT randomblob(200000)");
  insert.purpose("storing a large blob");
  try {
    insert.run();
    FAIL("the insert beyond max_page_count succeeded");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    CHECK(what.find("database " + temp.path + ": storing a large blob: ") == 0);
    CHECK(what.find("SQLITE_FULL although") != std::string::npos);
    CHECK(what.find("not the disk") != std::string::npos);
    CHECK(what.find("database or disk is full") == std::string::npos);
  }
}

TEST_CASE("open_existing_store never creates a file") {
  auto path = (fs::temp_directory_path() / "culprit_unit_missing.db").string();
  fs::remove(path);
  CHECK_THROWS_AS(open_existing_store(path), culprit::UsageError);
  CHECK_FALSE(fs::exists(path));
}

TEST_CASE("a run file loads with interned names and clocks indexed by rank") {
  auto path = (fs::temp_directory_path() / "culprit_unit_load.db").string();
  fs::remove(path);
  stepclock::RunFileContents c;
  c.names = {"step", "gemm.fwd"};
  using stepclock::EventKind;
  c.events = {{.begin_ns = 10, .end_ns = 20, .rank = 1, .step = 0, .kind = EventKind::kStep},
              {.begin_ns = 10,
               .end_ns = 20,
               .rank = 1,
               .step = 0,
               .layer = 2,
               .name = 1,
               .kind = EventKind::kCompute}};
  c.clocks.push_back({1, "h", 5, 100.0, 2.0, 7.0, 1, 1, 10});
  c.meta = {{"ranks", "2"}, {"warmup_steps", "1"}};
  c.config_json = "{\"x\":1}";
  stepclock::write_run_file(path, c);

  RunData run = load_run_file(path);
  CHECK(run.ranks == 2);
  CHECK(run.warmup_steps == 1);
  REQUIRE(run.events.size() == 2);
  CHECK(run.names[run.events[1].name] == "gemm.fwd");
  CHECK(run.events[1].layer == 2);
  REQUIRE(run.clocks.size() == 2);
  CHECK(run.clocks[0].offset_ns == 0.0);
  CHECK(run.clocks[1].aligned(1'000'005) == doctest::Approx(1'000'005 + 100.0 + 2.0));
  fs::remove(path);
}

// ---------------------------------------------------------------------------------------------
// Ingest, run lifecycle, queries and merge.

#include <fstream>

#include "culprit/storage/ingest.hpp"
#include "culprit/storage/merge.hpp"
#include "culprit/storage/queries.hpp"
#include "culprit/storage/records.hpp"

namespace {

using culprit::testing::TempStore;

std::string write_sample_run_file(const std::string& name, int ranks, int steps) {
  auto path = (fs::temp_directory_path() / ("culprit_unit_" + name + ".run.db")).string();
  fs::remove(path);
  stepclock::RunFileContents c;
  c.names = {"step"};
  for (int s = 0; s < steps; ++s) {
    for (int r = 0; r < ranks; ++r) {
      stepclock::EventRecord e;
      e.kind = stepclock::EventKind::kStep;
      e.rank = r;
      e.step = s;
      e.begin_ns = s * 1'000'000;
      e.end_ns = (s + 1) * 1'000'000;
      c.events.push_back(e);
    }
  }
  for (int r = 0; r < ranks; ++r) c.clocks.push_back({r, "h", 0, 0, 0, 0, 0, 0, 10});
  c.meta = {{"ranks", std::to_string(ranks)}, {"warmup_steps", "1"}};
  c.provenance.push_back({-1, "binding", "none"});
  c.config_json = "{\"seed\":7}";
  stepclock::write_run_file(path, c);
  return path;
}

struct Fixture {
  std::int64_t experiment = 0;
  std::int64_t config = 0;
};

Fixture add_experiment(Db& db, const std::string& hash = "h1") {
  Fixture f;
  ExperimentRecord e;
  e.name = "exp";
  e.manifest_path = "m.toml";
  e.manifest_text = "[experiment]";
  e.manifest_hash = hash;
  f.experiment = insert_experiment(db, e);
  ConfigurationRecord c;
  c.label = "baseline";
  c.backend = "sim";
  c.ranks = 2;
  c.resolved_json = "{}";
  c.config_hash = "c1";
  f.config = ensure_configuration(db, f.experiment, c);
  return f;
}

void finish_ok(Db& db, std::int64_t run_id, double median) {
  RunFinish f;
  f.status = RunStatus::kOk;
  f.finished_at = utc_now_iso8601();
  f.median_ms = median;
  finish_run(db, run_id, f);
}

}  // namespace

TEST_CASE("a run file is ingested whole under its run id") {
  TempStore store("ingest");
  auto db = open_store(store.path);
  const Fixture f = add_experiment(*db);
  const RunState run = ensure_run(*db, f.experiment, {f.config, 0}, 0, 42, "");
  const std::string file = write_sample_run_file("ingest", 3, 4);
  {
    AttachedRunFile attached(*db, file);
    CHECK(attached.event_count() == 12);
    Transaction tx(*db);
    CHECK(copy_run_file(*db, attached, run.id) == 12);
    replace_steps(*db, run.id, {{1, 1.0, 2e6, 2, false}});
    tx.commit();
  }
  RunData data = load_run(*db, run.id);
  CHECK(data.events.size() == 12);
  CHECK(data.ranks == 3);
  CHECK(data.warmup_steps == 1);
  // The truth is read apart from the run's facts, by run id.
  CHECK(load_run_config_echo(*db, run.id) == "{\"seed\":7}");
  CHECK(load_run_config_echo(*db, run.id + 1).empty());
  CHECK(db->query_int("SELECT count(*) FROM provenance").value() == 1);
  CHECK(db->query_int("SELECT count(*) FROM steps").value() == 1);

  SUBCASE("ingesting again replaces instead of duplicating") {
    AttachedRunFile attached(*db, file);
    Transaction tx(*db);
    copy_run_file(*db, attached, run.id);
    tx.commit();
    CHECK(db->query_int("SELECT coalesce(sum(events), 0) FROM run_event_packs").value() == 12);
    CHECK(db->query_int("SELECT count(*) FROM run_event_names").value() == 1);
    CHECK(db->query_int("SELECT count(*) FROM run_meta WHERE key = 'ranks'").value() == 1);
  }
  SUBCASE("clear_run_data removes everything but the run row") {
    clear_run_data(*db, run.id);
    CHECK(db->query_int("SELECT coalesce(sum(events), 0) FROM run_event_packs").value() == 0);
    CHECK(db->query_int("SELECT count(*) FROM run_event_names").value() == 0);
    CHECK(db->query_int("SELECT count(*) FROM steps").value() == 0);
    CHECK(db->query_int("SELECT count(*) FROM runs").value() == 1);
  }
  fs::remove(file);
}

TEST_CASE("a missing, foreign or newer run file is refused with its path") {
  TempStore store("bad_run_file");
  auto db = open_store(store.path);
  const auto missing = (fs::temp_directory_path() / "culprit_unit_none.run.db").string();
  fs::remove(missing);
  CHECK_THROWS_WITH(AttachedRunFile(*db, missing), doctest::Contains("bad run file"));
  CHECK_FALSE(fs::exists(missing));

  const auto text = (fs::temp_directory_path() / "culprit_unit_text.run.db").string();
  std::ofstream(text) << "not sqlite at all, just some text that is long enough to matter....";
  const std::string not_a_database = "bad run file " + text + ": file is not a database";
  CHECK_THROWS_WITH(AttachedRunFile(*db, text), doctest::Contains(not_a_database.c_str()));
  // Refused before the ATTACH: the store's connection is not touched and still reads.
  CHECK(db->query_int("SELECT count(*) FROM runs").value() == 0);
  fs::remove(text);

  const std::string newer = write_sample_run_file("newer", 1, 1);
  {
    Db raw(newer);
    raw.exec("UPDATE meta SET value = '99' WHERE key = 'format_version'");
  }
  CHECK_THROWS_WITH(AttachedRunFile(*db, newer), doctest::Contains("format_version 99"));
  fs::remove(newer);
  // The store is usable afterwards: nothing stayed attached.
  CHECK(db->query_int("SELECT count(*) FROM pragma_database_list WHERE name = 'run'").value() == 0);

  // A view where ingest reads a table: format 1's `events` (a view of the packs from format 3
  // on, whose recursive decode never ended on a pack claiming 2^40 events), or any table.
  const std::string viewed = write_sample_run_file("viewed", 1, 1);
  {
    Db raw(viewed);
    raw.exec("UPDATE meta SET value = '1' WHERE key = 'format_version'");
  }
  CHECK_THROWS_WITH(AttachedRunFile(*db, viewed),
                    doctest::Contains("events is a view, not a table"));
  {
    Db raw(viewed);
    raw.exec("UPDATE meta SET value = '3' WHERE key = 'format_version'");
    raw.exec("ALTER TABLE provenance RENAME TO provenance_rows");
    raw.exec("CREATE VIEW provenance AS SELECT * FROM provenance_rows");
  }
  CHECK_THROWS_WITH(AttachedRunFile(*db, viewed),
                    doctest::Contains("provenance is a view, not a table"));
  fs::remove(viewed);
  CHECK(db->query_int("SELECT count(*) FROM pragma_database_list WHERE name = 'run'").value() == 0);
}

TEST_CASE("run lifecycle: pending, running, attempts, interrupted") {
  TempStore store("lifecycle");
  auto db = open_store(store.path);
  const Fixture f = add_experiment(*db);
  const RunState first = ensure_run(*db, f.experiment, {f.config, 0}, 3, 99, "1/2");
  CHECK(first.status == RunStatus::kPending);
  CHECK(ensure_run(*db, f.experiment, {f.config, 0}, 7, 5, "").id == first.id);
  CHECK(db->query_int("SELECT position FROM runs").value() == 3);  // kept from the first plan

  CHECK(mark_running(*db, first.id, {"t0", "[]", "direct", ""}) == 1);
  CHECK(mark_interrupted(*db, f.experiment) == 1);
  CHECK(ensure_run(*db, f.experiment, {f.config, 0}, 3, 99, "").status == RunStatus::kInterrupted);
  CHECK(mark_running(*db, first.id, {"t1", "[]", "direct", ""}) == 2);
  finish_ok(*db, first.id, 12.5);
  CHECK(count_ok_runs(*db, f.config) == 1);
  CHECK(max_repetition(*db, f.config) == 0);
  CHECK(max_position(*db, f.experiment) == 3);

  const auto runs = list_runs(*db);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].status == "ok");
  CHECK(runs[0].attempt == 2);
  CHECK(runs[0].config == "baseline");
  CHECK(runs[0].median_ms.value() == 12.5);
  CHECK(runs[0].started_at == "t1");
}

TEST_CASE("merging shard stores is idempotent and keeps the ok copy") {
  TempStore a("merge_a"), b("merge_b"), out("merge_out");
  const std::string file = write_sample_run_file("merge", 2, 3);
  auto fill = [&](const std::string& path, int repetition, const std::string& status) {
    auto db = open_store(path);
    Fixture f;
    if (auto e = find_experiment(*db, "exp")) {
      f.experiment = e->id;
      f.config = *db->query_int("SELECT id FROM configurations");
    } else {
      f = add_experiment(*db);
    }
    const RunState run = ensure_run(*db, f.experiment, {f.config, repetition}, repetition, 1, "");
    {
      AttachedRunFile attached(*db, file);
      Transaction tx(*db);
      copy_run_file(*db, attached, run.id);
      tx.commit();
    }
    RunFinish finish;
    finish.status = parse_run_status(status);
    finish_run(*db, run.id, finish);
  };
  fill(a.path, 0, "ok");
  fill(a.path, 1, "failed");
  fill(b.path, 1, "ok");
  fill(b.path, 2, "ok");
  {
    auto db = open_store(b.path);  // an unfinished run is never copied
    ensure_run(*db, 1, {1, 3}, 3, 1, "");
  }

  auto db = open_store(out.path);
  MergeStats first = merge_store(*db, a.path);
  CHECK(first.experiments_added == 1);
  CHECK(first.configurations_added == 1);
  CHECK(first.runs_added == 2);
  MergeStats second = merge_store(*db, b.path);
  CHECK(second.runs_added == 1);     // repetition 2
  CHECK(second.runs_replaced == 1);  // repetition 1: failed in a, ok in b
  auto dump = [&] {
    std::string text;
    Statement s(*db,
                "SELECT r.repetition, r.status, (SELECT count(*) FROM run_events e WHERE "
                "e.run_id = r.id) FROM runs r ORDER BY r.repetition");
    while (s.step()) {
      text += std::to_string(s.column_int(0)) + s.column_text(1) + std::to_string(s.column_int(2)) +
              ";";
    }
    return text;
  };
  CHECK(dump() == "0ok6;1ok6;2ok6;");
  const auto events = db->query_int("SELECT coalesce(sum(events), 0) FROM run_event_packs").value();
  MergeStats again = merge_store(*db, a.path);
  MergeStats again_b = merge_store(*db, b.path);
  CHECK(again.runs_added + again.runs_replaced + again_b.runs_added + again_b.runs_replaced == 0);
  CHECK(dump() == "0ok6;1ok6;2ok6;");
  CHECK(db->query_int("SELECT coalesce(sum(events), 0) FROM run_event_packs").value() == events);
  CHECK(db->query_text("PRAGMA integrity_check").value() == "ok");

  SUBCASE("an experiment of the same name from another manifest is refused") {
    TempStore other("merge_other");
    {
      auto o = open_store(other.path);
      add_experiment(*o, "another-hash");
    }
    CHECK_THROWS_AS(merge_store(*db, other.path), culprit::UsageError);
  }
  SUBCASE("merging a store into itself is refused") {
    CHECK_THROWS_AS(merge_store(*db, out.path), culprit::UsageError);
  }
  fs::remove(file);
}

TEST_CASE("export_steps lists the steps of every run with its configuration") {
  TempStore store("export");
  auto db = open_store(store.path);
  const Fixture f = add_experiment(*db);
  const RunState run = ensure_run(*db, f.experiment, {f.config, 4}, 0, 1, "");
  replace_steps(*db, run.id, {{0, 5.0, 5e6, 1, true}, {1, 6.0, 11e6, 0, false}});
  finish_ok(*db, run.id, 6.0);
  const auto rows = export_steps(*db);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].config == "baseline");
  CHECK(rows[0].repetition == 4);
  CHECK(rows[0].warmup);
  CHECK(rows[1].time_ms == 6.0);
  CHECK(rows[1].last_rank == 0);
  CHECK(export_steps(*db, "no-such-experiment").empty());
}

// The store's packs are the run file's plus run_id, so ingest copies them unchanged; the kinds
// come from the same DDL (runfile::schema_statements). Checked on real files.
TEST_CASE("the store's event packs and kinds are the run file's") {
  const auto store_path = (fs::temp_directory_path() / "culprit_unit_columns.db").string();
  const auto run_path = (fs::temp_directory_path() / "culprit_unit_columns.run.db").string();
  fs::remove(store_path);
  fs::remove(run_path);
  stepclock::RunFileContents contents;
  contents.names = {"step"};
  stepclock::write_run_file(run_path, contents);
  auto columns = [](Db& db, const char* table) {
    std::string text;
    Statement info(db, std::string("PRAGMA table_info(") + table + ")");
    while (info.step()) {
      text += info.column_text(1) + " " + info.column_text(2) + " " +
              std::to_string(info.column_int(3)) + ";";
    }
    return text;
  };
  auto store = open_store(store_path);
  Db run(run_path, Db::Mode::kReadOnly);
  CHECK(columns(*store, "run_event_packs") ==
        "id INTEGER 0;run_id INTEGER 1;rank INTEGER 1;events INTEGER 1;data BLOB 1;");
  CHECK(columns(run, "event_packs") == "rank INTEGER 1;events INTEGER 1;data BLOB 1;");
  CHECK(columns(*store, "event_kinds") == columns(run, "event_kinds"));
  CHECK(store->query_int("SELECT count(*) FROM event_kinds").value() == 4);
  store.reset();
  for (const auto& p : {store_path, store_path + "-wal", store_path + "-shm", run_path}) {
    fs::remove(p);
  }
}

// A store of schema version 1 (kind and name as text in every event row), as culprit wrote it
// before events were interned: opened by this culprit, it is migrated and its events kept.
TEST_CASE("a version-1 store is migrated to interned events, its runs' events preserved") {
  TempStore store("migrate_v1");
  const auto db = culprit::testing::open_version1_store(
      store.path, "exp",
      "INSERT INTO runs (id, experiment_id, config_id, repetition, position, seed, status) "
      "VALUES (1, 1, 1, 0, 0, 1, 'ok'), (2, 1, 1, 1, 1, 1, 'ok');"
      "INSERT INTO run_meta (run_id, key, value) VALUES (1, 'ranks', '2'), (2, 'ranks', '2');"
      "INSERT INTO events (rank, step, microbatch, layer, seq, kind, name, begin_ns, end_ns, "
      "bytes, device, stream) VALUES "
      "(0, 0, -1, -1, -1, 'step', 'step', 0, 100, 0, -1, -1),"
      "(1, 0, 0, 1, -1, 'compute', 'gemm.fwd', 10, 40, 0, -1, -1),"
      "(1, 0, -1, -1, 0, 'collective', 'allreduce', 50, 90, 4096, 0, 3),"
      "(0, 0, -1, -1, -1, 'step', 'step', 1000, 1100, 0, -1, -1),"
      "(0, 0, -1, -1, -1, 'host', 'optimizer', 1010, 1020, 0, -1, -1);"
      "UPDATE runs SET first_event_rowid = 1, last_event_rowid = 3 WHERE id = 1;"
      "UPDATE runs SET first_event_rowid = 4, last_event_rowid = 5 WHERE id = 2;");
  CHECK_FALSE(db->query_int("SELECT 1 FROM sqlite_master WHERE name = 'events'").has_value());
  CHECK(db->query_int("SELECT coalesce(sum(events), 0) FROM run_event_packs").value() == 5);
  const RunData first = load_run(*db, 1);
  REQUIRE(first.events.size() == 3);
  CHECK(first.names.size() == 3);
  const Event& collective = first.events[2];  // sorted by (step, rank, begin)
  CHECK(first.names[collective.name] == "allreduce");
  CHECK(collective.kind == EventKind::kCollective);
  CHECK(collective.bytes == 4096);
  CHECK(first.names[first.events[1].name] == "gemm.fwd");
  CHECK(first.events[1].kind == EventKind::kCompute);
  CHECK(first.events[1].layer == 1);
  const RunData second = load_run(*db, 2);
  REQUIRE(second.events.size() == 2);
  CHECK(second.names[second.events[1].name] == "optimizer");
  CHECK(second.events[1].kind == EventKind::kHost);
  CHECK(load_run(*db, 2, EventSelection::kStepsOnly).events.size() == 1);
  // The text view still reads as version 1 did, device and stream included.
  CHECK(db->query_int("SELECT stream FROM run_events WHERE run_id = 1 AND kind = 'collective' "
                      "AND name = 'allreduce'")
            .value() == 3);
}

// A run file of format 1 (what culprit wrote before names were interned) made from a format-2
// file: the events view becomes a table with kind and name as text.
std::string downgrade_to_format1(const std::string& path) {
  Db file(path);
  file.exec(
      "CREATE TABLE events1 AS SELECT * FROM events; DROP VIEW events; "
      "DROP TABLE event_rows; DROP TABLE event_names; DROP TABLE event_kinds; "
      "ALTER TABLE events1 RENAME TO events; "
      "UPDATE meta SET value = '1' WHERE key = 'format_version';");
  return path;
}

TEST_CASE("a format-1 run file is still loaded and ingested") {
  const std::string path = (fs::temp_directory_path() / "culprit_unit_format1.run.db").string();
  fs::remove(path);
  stepclock::RunFileContents c;
  c.names = {"step", "gemm.fwd", "allreduce"};
  using stepclock::EventKind;
  c.events = {
      {.end_ns = 100, .rank = 0, .step = 0, .kind = EventKind::kStep},
      {.end_ns = 100, .bytes = 64, .rank = 0, .step = 0, .name = 2, .kind = EventKind::kCollective},
      {.end_ns = 100, .rank = 1, .step = 0, .name = 1, .kind = EventKind::kCompute}};
  c.meta = {{"ranks", "2"}};
  stepclock::write_run_file(path, c);
  downgrade_to_format1(path);

  const RunData loaded = load_run_file(path);
  REQUIRE(loaded.events.size() == 3);
  auto names_of = [](const RunData& run) {
    std::vector<std::string> out;
    for (const Event& x : run.events) {
      out.push_back(run.names[x.name] + "/" + runfile::event_kind_name(x.kind));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  const std::vector<std::string> expected = {"allreduce/collective", "gemm.fwd/compute",
                                             "step/step"};
  CHECK(names_of(loaded) == expected);

  TempStore store("format1");
  auto db = open_store(store.path);
  const Fixture f = add_experiment(*db);
  const RunState run = ensure_run(*db, f.experiment, {f.config, 0}, 0, 1, "");
  {
    AttachedRunFile attached(*db, path);
    CHECK(attached.format() == 1);
    CHECK(attached.event_count() == 3);
    Transaction tx(*db);
    CHECK(copy_run_file(*db, attached, run.id) == 3);
    tx.commit();
  }
  const RunData stored = load_run(*db, run.id);
  CHECK(names_of(stored) == expected);
  CHECK(load_run(*db, run.id, EventSelection::kStepsOnly).events.size() == 1);
  fs::remove(path);
}

TEST_CASE("one writer per store: a second process is refused naming the holder") {
  const auto path = (fs::temp_directory_path() / "culprit_unit_lock.db").string();
  fs::remove(path + ".lock");
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  const pid_t child = fork();
  if (child == 0) {
    auto lock = WriterLock::acquire(path);
    char byte = 1;
    [[maybe_unused]] auto n = write(ready[1], &byte, 1);
    pause();
    _exit(0);
  }
  char byte = 0;
  REQUIRE(read(ready[0], &byte, 1) == 1);
  const std::string holder =
      "being written by another culprit (pid " + std::to_string(child) + " on ";
  CHECK_THROWS_WITH_AS(WriterLock::acquire(path), doctest::Contains(holder.c_str()),
                       culprit::UsageError);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(ready[0]);
  close(ready[1]);
  // The dead holder's file stays; the next writer takes it over and says whose it was.
  auto lock = WriterLock::acquire(path);
  CHECK(lock->stale_holder().find("pid " + std::to_string(child)) == 0);
  CHECK(WriterLock::acquire(path) == lock);  // shared within one process
  lock.reset();
  CHECK_FALSE(fs::exists(path + ".lock"));
}

TEST_CASE("item 1 (#38): the writer lock is the store's file, not the name it was given") {
  // Hand-written: a store written by a child process, reached through a symlink and a hard link.
  const auto dir = fs::temp_directory_path() / "culprit_unit_lock_names";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto path = (dir / "s.db").string();
  { auto db = open_store(path); }
  fs::create_symlink(path, dir / "link.db");
  fs::create_hard_link(path, dir / "hard.db");
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  const pid_t child = fork();
  if (child == 0) {
    auto db = open_store(path);
    char byte = 1;
    [[maybe_unused]] auto n = write(ready[1], &byte, 1);
    pause();
    _exit(0);
  }
  char byte = 0;
  REQUIRE(read(ready[0], &byte, 1) == 1);
  const std::string holder =
      "being written by another culprit (pid " + std::to_string(child) + " on ";
  CHECK_THROWS_WITH_AS(open_store((dir / "link.db").string()), doctest::Contains(holder.c_str()),
                       culprit::UsageError);
  CHECK_THROWS_WITH_AS(open_store((dir / "hard.db").string()),
                       doctest::Contains("through another name of the same file (a hard link)"),
                       culprit::UsageError);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(ready[0]);
  close(ready[1]);
  { auto db = open_store((dir / "hard.db").string()); }  // free again once the holder is gone
  CHECK(writer_lock_path((dir / "link.db").string()) == writer_lock_path(path));
  fs::remove_all(dir);
}

TEST_CASE("open_store refuses a foreign SQLite file and leaves it untouched") {
  const auto path = (fs::temp_directory_path() / "culprit_unit_foreign.db").string();
  fs::remove(path);
  {
    Db raw(path);
    raw.exec("CREATE TABLE users (id INTEGER PRIMARY KEY)");
  }
  const auto size = fs::file_size(path);
  CHECK_THROWS_WITH_AS(open_store(path), doctest::Contains("another application (tables: users)"),
                       culprit::UsageError);
  CHECK_THROWS_AS(open_existing_store(path), culprit::UsageError);
  CHECK(fs::file_size(path) == size);
  {
    Db raw(path, Db::Mode::kReadOnly);
    CHECK(raw.query_int("SELECT count(*) FROM sqlite_master").value() == 1);
  }
  fs::remove(path);
}

TEST_CASE(
    "item 13 (#38): a full disk is a usage error, and a store it kept from being made is "
    "removed") {
  // The file size limit (RLIMIT_FSIZE, SIGXFSZ ignored) stands in for a full disk, in a child.
  const auto path = (fs::temp_directory_path() / "culprit_unit_full_disk.db").string();
  for (const char* suffix : {"", "-wal", "-shm", ".lock"}) fs::remove(path + suffix);
  const pid_t child = fork();
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    setrlimit(RLIMIT_FSIZE, &limit);
    int code = 3;
    try {
      open_store(path);
      code = 4;
    } catch (const culprit::UsageError& e) {
      code =
          std::string(e.what()).find("free space on its file system") != std::string::npos ? 0 : 5;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      code = 6;
    }
    _exit(code);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  const int code = WEXITSTATUS(status);
  CHECK(code == 0);  // 6: not a UsageError (exit 1 "internal error" before)
  CHECK_FALSE(fs::exists(path));
  CHECK_FALSE(fs::exists(path + "-wal"));
}
