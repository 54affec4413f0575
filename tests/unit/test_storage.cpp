#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "culprit/common/sha256.hpp"
#include "culprit/errors.hpp"
#include "culprit/storage/evidence.hpp"
#include "culprit/storage/run_data.hpp"
#include "culprit/storage/store.hpp"
#include "culprit/storage/writer_lock.hpp"
#include "runfile/meta_keys.hpp"
#include "stepclock/runfile.hpp"
#include "stepmodel/config.hpp"
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
      // 7: experiment_settings' sampling (issue 37), block, looks and [reduced_from] (issue 33)
      "f32684cd1f54c4d9511ccbe7da9eef5773c24a547914f128c2eeff69c789a402"};
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

TEST_CASE("item 3 (#38): ranks 2 and 3 of a job load as positions 0 and 1 with their ids") {
  auto path = (fs::temp_directory_path() / "culprit_unit_rank_ids.db").string();
  fs::remove(path);
  stepclock::RunFileContents c;  // hand-written: a partial import's shape (ranks 2 and 3 of 4)
  c.names = {"step"};
  using stepclock::EventKind;
  for (int rank : {3, 2}) {
    c.events.push_back(
        {.begin_ns = 10, .end_ns = 20, .rank = rank, .step = 0, .kind = EventKind::kStep});
    c.clocks.push_back({rank, "h", 0, 100.0 * rank, 0, 0, 1, 1, 10});
    c.provenance.push_back({rank, "sched.step_wait_ns", "0:" + std::to_string(rank)});
    c.provenance.push_back(
        {rank, "sched.step_collective_wait_ns", "0:" + std::to_string(rank - 2)});
  }
  c.meta = {{"ranks", "2"}};
  stepclock::write_run_file(path, c);

  const RunData run = load_run_file(path);
  CHECK(run.ranks == 2);
  CHECK(run.rank_ids == std::vector<std::int32_t>{2, 3});
  REQUIRE(run.events.size() == 2);
  CHECK(run.events[0].rank == 0);  // rank 2, first in (step, rank) order
  CHECK(run.events[1].rank == 1);
  REQUIRE(run.clocks.size() == 2);
  CHECK(run.clocks[0].offset_ns == 200.0);  // rank 2's model at position 0
  CHECK(run.clocks[1].offset_ns == 300.0);
  REQUIRE(run.step_cpu_wait_ns.size() == 2);
  CHECK(run.step_cpu_wait_ns[1][0] == 3.0);
  REQUIRE(run.step_collective_wait_ns.size() == 2);
  CHECK(run.step_collective_wait_ns[0][0] == 0.0);  // rank 2's, at its position
  CHECK(run.step_collective_wait_ns[1][0] == 1.0);
  CHECK(run.rank_id(0) == 2);
  CHECK(run.rank_id(-1) == -1);
  CHECK(run.position_of(3) == 1);
  CHECK(run.position_of(0) == -1);
  CHECK(run.rank_list() == "2, 3");
  fs::remove(path);

  // A dense run keeps no map: position r is rank r, even with a rank that recorded nothing.
  RunData dense;
  dense.ranks = 4;
  CHECK(dense.rank_id(3) == 3);
  CHECK(dense.position_of(4) == -1);
  CHECK(dense.rank_list() == "0..3");
}

// ---------------------------------------------------------------------------------------------
// Ingest, run lifecycle, queries and merge.

#include <fstream>

#include "culprit/storage/ingest.hpp"
#include "culprit/storage/job_setup.hpp"
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
    CHECK(copy_run(*db, &attached, run.id) == 12);
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
    copy_run(*db, &attached, run.id);
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
      copy_run(*db, &attached, run.id);
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
  ExperimentSettingsRecord settings;  // as `culprit run` of a reduced experiment stores them
  settings.block = 5;
  settings.looks = 4;
  settings.reduced_from = ReducedFromRecord{};
  settings.reduced_from->baseline_run = 1;
  settings.reduced_from->candidate_run = 2;
  settings.reduced_from->delta_ms = 3.5;
  settings.reduced_from->db = "x.db";
  settings.reduced_from->excess_steps = {2};
  {
    auto db = open_store(a.path);
    put_experiment_settings(*db, 1, settings);
  }

  {
    auto db = open_store(a.path);  // evidence attached to run 1: it comes along
    KernelCounterRow counter;
    counter.kernel = "gemm";
    counter.metric = "dram__bytes_read.sum";
    counter.value = 1e6;
    put_kernel_counters(*db, 1, {counter});
    TelemetryRow sample;
    sample.field = "SM_CLOCK";
    sample.value = 1.98e9;
    put_telemetry(*db, 1, {sample});
  }

  auto db = open_store(out.path);
  MergeStats first = merge_store(*db, a.path);
  CHECK(first.experiments_added == 1);
  CHECK(first.configurations_added == 1);
  CHECK(first.runs_added == 2);
  CHECK(experiment_settings(*db, find_experiment(*db, "exp")->id) == settings);  // copied whole
  const std::int64_t merged_run =
      *db->query_int("SELECT id FROM runs WHERE repetition = 0");  // store a's run 1
  CHECK(load_kernel_counters(*db, merged_run).size() == 1);
  CHECK(load_telemetry(*db, merged_run).size() == 1);
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

// Two people's stores of imports lost a run in a merge: repetition 0 of each, two captures,
// looked like one run, and the second was "kept" away.
TEST_CASE("merging imported runs: one capture or one import is one run, else the next repetition") {
  TempStore out("merge_import_out");
  int stores = 0;
  // A store of one imported run: its start time and, unless "", its capture's digest.
  auto store_of = [&stores](const std::string& started, const std::string& digest) {
    auto store = std::make_unique<TempStore>("merge_import_" + std::to_string(++stores));
    auto db = open_store(store->path);
    const Fixture f = add_experiment(*db, kImportedManifestHash);
    const RunState run = ensure_run(*db, f.experiment, {f.config, 0}, 0, 0, "");
    RunStart start;
    start.started_at = started;
    mark_running(*db, run.id, start);
    if (!digest.empty()) set_run_meta(*db, run.id, runfile::meta::kStepsDigest, digest);
    finish_ok(*db, run.id, 10);
    return store;
  };
  const auto a = store_of("t1", "d1"), b = store_of("t2", "d2");
  auto db = open_store(out.path);
  auto runs = [&] {
    std::string text;
    Statement s(*db, "SELECT repetition, position, started_at FROM runs ORDER BY id");
    while (s.step()) {
      text += std::to_string(s.column_int(0)) + "/" + std::to_string(s.column_int(1)) + "/" +
              s.column_text(2) + ";";
    }
    return text;
  };
  CHECK(merge_store(*db, a->path).runs_added == 1);
  CHECK(merge_store(*db, b->path).runs_added == 1);  // its repetition 0 is another capture
  CHECK(runs() == "0/0/t1;1/1/t2;");
  CHECK(merge_store(*db, a->path).runs_kept == 1);  // merged again: the same capture
  CHECK(merge_store(*db, store_of("t3", "d1")->path).runs_kept == 1);  // re-imported elsewhere
  CHECK(merge_store(*db, store_of("t1", "")->path).runs_kept == 1);    // no digest: the same import
  CHECK(merge_store(*db, store_of("t9", "")->path).runs_added == 1);
  CHECK(merge_store(*db, store_of("t1", "d7")->path).runs_added == 1);  // digests differ: another
  CHECK(runs() == "0/0/t1;1/1/t2;2/2/t9;3/3/t1;");
}

namespace {

// The configuration echo `culprit import` stores: `ranks` of a job of `world_size` ranks.
std::string import_echo(int ranks, int world_size) {
  stepmodel::RunConfig c;
  c.ranks = ranks;
  c.import = stepmodel::ImportSection{"kineto", "gloo", world_size > ranks, world_size, {}};
  return stepmodel::to_json(c, stepmodel::JsonFields::kConfiguration);
}

}  // namespace

TEST_CASE("a configuration's job setup: its ranks, backend and the imported job's size") {
  ConfigurationRecord c;
  c.ranks = 2;
  c.backend = "gloo";
  c.resolved_json = import_echo(2, 4);
  CHECK(job_setup(c) == JobSetup{2, "gloo", 4});
  CHECK(describe(job_setup(c)) == "2 of 4 rank(s) over gloo");
  c.resolved_json = import_echo(2, 2);
  CHECK(describe(job_setup(c)) == "2 rank(s) over gloo");
  c.resolved_json = "{}";  // a launched run's configuration or an older echo: its ranks
  CHECK(job_setup(c) == JobSetup{2, "gloo", 2});
  c.resolved_json = "not json";
  CHECK(job_setup(c) == JobSetup{2, "gloo", 2});
}

// A 2-of-4 partial import and a whole 2-rank job under one label of two stores were merged into
// one configuration: two jobs' step times pooled as one sample.
TEST_CASE("merging refuses one configuration of two job setups, and merges nothing") {
  int stores = 0;
  auto store_of = [&stores](int world_size) {
    auto store = std::make_unique<TempStore>("merge_job_" + std::to_string(++stores));
    auto db = open_store(store->path);
    ExperimentRecord e;
    e.name = "import";
    e.manifest_hash = kImportedManifestHash;
    const std::int64_t experiment = insert_experiment(*db, e);
    ConfigurationRecord c;
    c.label = "imported";
    c.backend = "gloo";
    c.ranks = 2;
    c.resolved_json = import_echo(2, world_size);
    c.config_hash = "same label";
    const std::int64_t config = ensure_configuration(*db, experiment, c);
    const RunState run = ensure_run(*db, experiment, {config, 0}, 0, 0, "");
    mark_running(*db, run.id, RunStart{});
    set_run_meta(*db, run.id, runfile::meta::kStepsDigest, "capture " + std::to_string(stores));
    finish_ok(*db, run.id, 10);
    return store;
  };
  const auto whole = store_of(2), partial = store_of(4), whole_again = store_of(2);
  TempStore out("merge_job_out");
  const std::string refusal = "configuration 'imported': " + whole->path +
                              " holds runs of 2 rank(s) over gloo, " + partial->path +
                              " of 2 of 4 rank(s) over gloo: the runs of one configuration are "
                              "repetitions of one job setup";
  try {
    check_merge_inputs(out.path, {whole->path, partial->path});
    FAIL("two job setups under one configuration were accepted");
  } catch (const culprit::UsageError& e) {
    CHECK(std::string(e.what()).find(refusal) != std::string::npos);
    CHECK(std::string(e.what()).find("nothing was merged") != std::string::npos);
  }
  CHECK_FALSE(fs::exists(out.path));
  CHECK_NOTHROW(check_merge_inputs(out.path, {whole->path, whole_again->path}));
  auto db = open_store(out.path);
  CHECK(merge_store(*db, whole->path).runs_added == 1);
  CHECK(merge_store(*db, whole_again->path).runs_added == 1);  // one job, another capture
  try {
    merge_store(*db, partial->path);
    FAIL("merge_store took a configuration of another job setup");
  } catch (const culprit::UsageError& e) {
    CHECK(std::string(e.what()).find(out.path + " holds runs of 2 rank(s) over gloo, " +
                                     partial->path + " of 2 of 4 rank(s) over gloo") !=
          std::string::npos);
    CHECK(std::string(e.what()).find("nothing of " + partial->path + " was merged") !=
          std::string::npos);
  }
  CHECK(db->query_int("SELECT count(*) FROM runs") == 2);  // the input's transaction rolled back
  CHECK(db->query_int("SELECT count(*) FROM configurations") == 1);
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
    CHECK(copy_run(*db, &attached, run.id) == 3);
    tx.commit();
  }
  const RunData stored = load_run(*db, run.id);
  CHECK(names_of(stored) == expected);
  CHECK(load_run(*db, run.id, EventSelection::kStepsOnly).events.size() == 1);
  fs::remove(path);
}

namespace {

// A child process that holds a store's writer lock (what `hold` returns, kept until it is
// killed) so that the test meets another culprit writing the store; the constructor returns
// once the child holds it.
class LockHolder {
 public:
  template <typename Hold>
  explicit LockHolder(Hold hold) {
    REQUIRE(pipe(ready_) == 0);
    pid_ = fork();
    if (pid_ == 0) {
      auto held = hold();
      char byte = 1;
      [[maybe_unused]] auto n = write(ready_[1], &byte, 1);
      pause();
      _exit(0);
    }
    char byte = 0;
    REQUIRE(read(ready_[0], &byte, 1) == 1);
  }
  LockHolder(const LockHolder&) = delete;
  LockHolder& operator=(const LockHolder&) = delete;
  ~LockHolder() { stop(); }

  pid_t pid() const { return pid_; }
  // How the refusal names this holder.
  std::string refusal() const {
    return "being written by another culprit (pid " + std::to_string(pid_) + " on ";
  }
  // Kills the child: its lock file stays behind, as a crashed culprit's would.
  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    close(ready_[0]);
    close(ready_[1]);
    pid_ = -1;
  }

 private:
  int ready_[2] = {-1, -1};
  pid_t pid_ = -1;
};

}  // namespace

TEST_CASE("one writer per store: a second process is refused naming the holder") {
  const auto path = (fs::temp_directory_path() / "culprit_unit_lock.db").string();
  fs::remove(path + ".lock");
  LockHolder child([&] { return WriterLock::acquire(path); });
  CHECK_THROWS_WITH_AS(WriterLock::acquire(path), doctest::Contains(child.refusal().c_str()),
                       culprit::UsageError);
  const pid_t holder = child.pid();
  child.stop();
  // The dead holder's file stays; the next writer takes it over and says whose it was.
  auto lock = WriterLock::acquire(path);
  CHECK(lock->stale_holder().find("pid " + std::to_string(holder)) == 0);
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
  LockHolder child([&] { return open_store(path); });
  CHECK_THROWS_WITH_AS(open_store((dir / "link.db").string()),
                       doctest::Contains(child.refusal().c_str()), culprit::UsageError);
  CHECK_THROWS_WITH_AS(open_store((dir / "hard.db").string()),
                       doctest::Contains("through another name of the same file (a hard link)"),
                       culprit::UsageError);
  child.stop();
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

// Issue 33: the settings a reader needs are columns, read by experiment_settings() alone.
TEST_CASE("experiment settings round-trip: block, looks and [reduced_from] as columns") {
  TempStore store("settings_columns");
  auto db = open_store(store.path);
  const Fixture f = add_experiment(*db);
  ExperimentSettingsRecord plain;
  plain.alpha = 0.1;
  plain.margin = 0.03;
  plain.repetitions = 6;
  plain.max_repetitions = 12;
  plain.block = 6;
  plain.looks = 2;
  put_experiment_settings(*db, f.experiment, plain);
  CHECK(experiment_settings(*db, f.experiment) == plain);
  CHECK_FALSE(experiment_settings(*db, f.experiment)->reduced_from.has_value());
  ExperimentSettingsRecord reduced = plain;
  ReducedFromRecord from;
  from.baseline_run = 3;
  from.candidate_run = 9;
  from.baseline_median_ms = 40.612;
  from.candidate_median_ms = 30.254;
  from.delta_ms = -10.36;
  from.db = "t.db";
  from.excess_steps = {3, 17};
  from.step_excess_ms = 29.263;
  from.shift_ms = 78.83;
  from.shift_runs = {6, 5};
  reduced.reduced_from = from;
  put_experiment_settings(*db, f.experiment, reduced);  // replaces (--force, resume)
  const auto back = experiment_settings(*db, f.experiment);
  REQUIRE(back.has_value());
  CHECK(*back == reduced);
  CHECK(back->reduced_from->target_ms() == 78.83);
  // The oracle: the columns themselves.
  CHECK(db->query_text("SELECT reduced_excess_steps || '|' || reduced_shift_runs FROM "
                       "experiment_settings")
            .value() == "3,17|6,5");
  CHECK_FALSE(experiment_settings(*db, f.experiment + 1).has_value());
}

TEST_CASE("migration 7: older settings read as unknown block and looks; a lost [reduced_from]") {
  TempStore store("migrate_v6");
  {
    Db old(store.path);
    for (int v = 0; v < 6; ++v) old.exec(store_migration(v));
    old.exec("PRAGMA user_version = 6");
    old.exec(
        "INSERT INTO experiments (id, name, manifest_path, manifest_text, manifest_hash, "
        "created_at) VALUES (1, 'plain', 'p.toml', '[experiment]\nname = \"plain\"\n', 'h1', "
        "'now'), (2, 'reduced', 'r.toml', '[experiment]\n[reduced_from]\ndelta_ms = 3\n', 'h2', "
        "'now');"
        "INSERT INTO experiment_settings VALUES (1, 0.05, 0.02, 6, 12), (2, 0.05, 0.02, 8, 8)");
  }
  auto db = open_store(store.path);
  CHECK(schema_version(*db) == 7);
  const auto plain = experiment_settings(*db, 1);
  REQUIRE(plain.has_value());
  CHECK(plain->repetitions == 6);
  CHECK(plain->max_repetitions == 12);
  CHECK(plain->block == 0);
  CHECK(plain->looks == 0);
  CHECK_FALSE(plain->reduced_from_lost);
  const auto reduced = experiment_settings(*db, 2);
  REQUIRE(reduced.has_value());
  CHECK(reduced->reduced_from_lost);
  CHECK_FALSE(reduced->reduced_from.has_value());
}

TEST_CASE("the folders beside a store are named after it by one rule") {
  CHECK(store_folder("/w/s.db", StoreFolder::kRuns) == "/w/s.db.runs");
  CHECK(store_folder("/w/s.db", StoreFolder::kBuilds) == "/w/s.db.builds");
  CHECK(store_folder("rel/s.db", StoreFolder::kSlurm) == "rel/s.db.slurm");
  // ...and back: the store of a run file kept in its run folder.
  CHECK(culprit::storage::store_of_run_file("/w/s.db.runs/3.1/run.db") == "/w/s.db");
  CHECK(culprit::storage::store_of_run_file("s.db.runs/3.1/run.db") == "s.db");
  CHECK(culprit::storage::store_of_run_file("/w/3.1/run.db").empty());
  CHECK(culprit::storage::store_of_run_file("run.db").empty());
  CHECK(culprit::storage::store_of_run_file(".runs/3.1/run.db").empty());
}
