#include <doctest/doctest.h>

#include <filesystem>

#include "culprit/errors.hpp"
#include "culprit/storage/run_data.hpp"
#include "culprit/storage/store.hpp"
#include "stepclock/runfile.hpp"

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
  stepclock::EventRecord e;
  e.kind = stepclock::EventKind::kStep;
  e.rank = 1;
  e.step = 0;
  e.begin_ns = 10;
  e.end_ns = 20;
  c.events.push_back(e);
  e.kind = stepclock::EventKind::kCompute;
  e.name = 1;
  e.layer = 2;
  c.events.push_back(e);
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
  CHECK(run.config_json == "{\"x\":1}");
  fs::remove(path);
}
