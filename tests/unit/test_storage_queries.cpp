// The store's read API (experiment -> configurations -> runs), the run-status enum and the
// migration that made "superseded" a column: known answers on small stores.
#include <doctest/doctest.h>

#include <filesystem>

#include "culprit/errors.hpp"
#include "culprit/storage/queries.hpp"
#include "culprit/storage/records.hpp"
#include "culprit/storage/store.hpp"
#include "temp_store.hpp"

namespace fs = std::filesystem;
using namespace culprit::storage;

namespace {

// Named apart from test_storage's stores (the two binaries may run at the same time).
struct TempStore : culprit::testing::TempStore {
  explicit TempStore(const std::string& name) : culprit::testing::TempStore("queries_" + name) {}
};

std::int64_t add_experiment(Db& db, const std::string& name, const std::string& created_at) {
  ExperimentRecord e;
  e.name = name;
  e.manifest_path = name + ".toml";
  e.manifest_text = "[experiment] # " + name;
  e.manifest_hash = "h-" + name;
  const std::int64_t id = insert_experiment(db, e);
  Statement set(db, "UPDATE experiments SET created_at = ?2 WHERE id = ?1");
  set.bind(1, id).bind(2, created_at).run();
  return id;
}

std::int64_t add_config(Db& db, std::int64_t experiment, const std::string& label, bool baseline) {
  ConfigurationRecord c;
  c.label = label;
  c.factor = baseline ? "" : "threads";
  c.level_json = baseline ? "null" : "4";
  c.is_baseline = baseline;
  c.backend = "sim";
  c.resolved_json = "{\"label\":\"" + label + "\"}";
  c.config_hash = "hash-" + label;
  return ensure_configuration(db, experiment, c);
}

// One run per entry: (repetition, position, status, median).
struct RunSpec {
  int repetition;
  int position;
  RunStatus status;
  double median_ms;
};

std::int64_t add_run(Db& db, std::int64_t experiment, std::int64_t config, const RunSpec& r,
                     const std::string& binding = "core") {
  const RunState state = ensure_run(db, experiment, {config, r.repetition}, r.position, 1, "");
  if (r.status == RunStatus::kPending) return state.id;
  mark_running(db, state.id, {"t0", "[]", "mpirun", binding});
  if (r.status == RunStatus::kRunning) return state.id;
  RunFinish finish;
  finish.status = r.status;
  finish.finished_at = "t1";
  if (r.status == RunStatus::kOk) finish.median_ms = r.median_ms;
  if (r.status != RunStatus::kOk) finish.error = "it broke";
  finish_run(db, state.id, finish);
  return state.id;
}

}  // namespace

TEST_CASE("run status: every value round-trips through the store's text; others are refused") {
  for (const RunStatus s :
       {RunStatus::kPending, RunStatus::kRunning, RunStatus::kOk, RunStatus::kFailed,
        RunStatus::kTimeout, RunStatus::kCrashed, RunStatus::kInterrupted}) {
    CHECK(parse_run_status(to_text(s)) == s);
  }
  CHECK(to_text(RunStatus::kOk) == "ok");
  CHECK(to_text(RunStatus::kInterrupted) == "interrupted");
  CHECK_THROWS_WITH(parse_run_status("OK"), doctest::Contains("unknown run status 'OK'"));
  CHECK(is_finished(RunStatus::kCrashed));
  CHECK_FALSE(is_finished(RunStatus::kInterrupted));
  CHECK_FALSE(is_finished(RunStatus::kPending));

  TempStore store("status");
  auto db = open_store(store.path);
  const auto e = add_experiment(*db, "e", "2026-01-01T00:00:00.000Z");
  const auto c = add_config(*db, e, "baseline", true);
  const auto run = add_run(*db, e, c, {0, 0, RunStatus::kTimeout, 0});
  CHECK(db->query_text("SELECT status FROM runs").value() == "timeout");  // the DB keeps text
  CHECK(run_status(*db, run) == RunStatus::kTimeout);
  CHECK_FALSE(run_status(*db, run + 1).has_value());
}

TEST_CASE("load_experiment_runs: the baseline first, ok runs in execution order, latest by time") {
  TempStore store("load");
  auto db = open_store(store.path);
  // "old" is inserted last but created first: the latest is the most recently created.
  const auto newer = add_experiment(*db, "new", "2026-03-01T00:00:00.000Z");
  const auto older = add_experiment(*db, "old", "2026-01-01T00:00:00.000Z");
  const auto cand = add_config(*db, newer, "t4", false);
  const auto base = add_config(*db, newer, "baseline", true);
  add_config(*db, older, "baseline", true);
  add_run(*db, newer, base, {0, 3, RunStatus::kOk, 12.0}, "core");
  add_run(*db, newer, base, {1, 1, RunStatus::kOk, 10.0}, "none");
  add_run(*db, newer, base, {2, 2, RunStatus::kFailed, 0});
  add_run(*db, newer, base, {3, 4, RunStatus::kPending, 0});
  add_run(*db, newer, cand, {0, 0, RunStatus::kOk, 20.0});
  add_run(*db, newer, cand, {1, 5, RunStatus::kCrashed, 0});

  const ExperimentRuns latest = load_experiment_runs(*db, "");
  CHECK(latest.experiment.name == "new");
  CHECK(latest.experiment.manifest_text == "[experiment] # new");
  REQUIRE(latest.configs.size() == 2);
  CHECK(latest.configs[0].config.label == "baseline");  // baseline first, though inserted second
  CHECK(latest.configs[0].config.is_baseline);
  CHECK(latest.configs[0].config.backend == "sim");
  CHECK(latest.configs[1].config.label == "t4");
  CHECK(latest.configs[1].config.level_json == "4");
  const auto& ok = latest.configs[0].ok_runs;
  REQUIRE(ok.size() == 2);  // the failed and the pending run are not samples
  CHECK(ok[0].position == 1);
  CHECK(ok[0].median_ms == 10.0);
  CHECK(ok[0].binding == "none");
  CHECK(ok[1].position == 3);
  CHECK(ok[1].repetition == 0);
  CHECK(ok[1].median_ms == 12.0);
  REQUIRE(latest.configs[1].ok_runs.size() == 1);
  CHECK(latest.configs[1].ok_runs[0].median_ms == 20.0);

  CHECK(load_experiment_runs(*db, "old").experiment.id == older);
  CHECK(load_experiment_runs(*db, "old").configs.front().ok_runs.empty());
  CHECK_THROWS_WITH_AS(load_experiment_runs(*db, "nope"),
                       doctest::Contains("has no experiment 'nope'"), culprit::UsageError);

  CHECK(ok_medians_by_hash(*db, newer, "hash-baseline") == std::vector<double>{12.0, 10.0});
  CHECK(ok_medians_by_hash(*db, newer, "hash-none").empty());
  const std::int64_t first_base_run = ok[1].id;  // repetition 0
  CHECK(sibling_ok_medians(*db, first_base_run) == std::vector<double>{12.0, 10.0});
  CHECK(resolved_json_of_run(*db, first_base_run) == "{\"label\":\"baseline\"}");
  CHECK_FALSE(resolved_json_of_run(*db, 999).has_value());
  CHECK(count_runs(*db) == 6);

  const PlannedRunCounts planned = count_planned_runs(*db, "new", 2);
  CHECK(planned.ok == 3);        // base 0, 1 and cand 0
  CHECK(planned.finished == 4);  // and cand 1 (crashed); base 2 is beyond the plan
  CHECK(count_planned_runs(*db, "old", 2).finished == 0);

  const auto summary = find_run(*db, latest.configs[1].ok_runs[0].id + 1);
  REQUIRE(summary.has_value());
  CHECK(summary->status == "crashed");
  CHECK(summary->error == "it broke");
  CHECK(summary->config == "t4");
}

TEST_CASE("load_experiment_runs on an empty store says what to do") {
  TempStore store("empty");
  auto db = open_store(store.path);
  CHECK_THROWS_WITH_AS(load_experiment_runs(*db, ""),
                       doctest::Contains("holds no experiment yet: run one with `culprit run"),
                       culprit::UsageError);
}

TEST_CASE("provenance of ok runs, job-wide or of every rank; run meta and job provenance") {
  TempStore store("provenance");
  auto db = open_store(store.path);
  const auto e = add_experiment(*db, "e", "2026-01-01T00:00:00.000Z");
  const auto c = add_config(*db, e, "baseline", true);
  const auto ok = add_run(*db, e, c, {0, 0, RunStatus::kOk, 1.0});
  const auto failed = add_run(*db, e, c, {1, 1, RunStatus::kFailed, 0});
  put_job_provenance(*db, ok, {{"yield_mode", "spin"}, {"host", "job-host"}});
  put_job_provenance(*db, failed, {{"yield_mode", "sleep"}});
  put_job_provenance(*db, ok, {{"yield_mode", "spin"}});  // replaces, does not duplicate
  Statement rank(*db,
                 "INSERT INTO provenance (run_id, rank, key, value) VALUES (?1, 0, 'host', 'n0')");
  rank.bind(1, ok).run();
  CHECK(ok_run_provenance(*db, c, "yield_mode", true) == std::set<std::string>{"spin"});
  CHECK(ok_run_provenance(*db, c, "host", false) == std::set<std::string>{"job-host", "n0"});
  CHECK(ok_run_provenance(*db, c, "host", true) == std::set<std::string>{"job-host"});

  CHECK_FALSE(run_meta_value(*db, ok, "warmup_steps").has_value());
  set_run_meta(*db, ok, "warmup_steps", "2");
  set_run_meta(*db, ok, "warmup_steps", "3");
  CHECK(run_meta_value(*db, ok, "warmup_steps") == "3");
  set_run_error(*db, failed, "disk full");
  CHECK(find_run(*db, failed)->error == "disk full");
}

TEST_CASE("superseded configurations: marked, left out by readers, their label free again") {
  TempStore store("supersede");
  auto db = open_store(store.path);
  const auto e = add_experiment(*db, "e", "2026-01-01T00:00:00.000Z");
  add_config(*db, e, "baseline", true);
  const auto old_v2 = add_config(*db, e, "v2", false);
  add_run(*db, e, old_v2, {0, 0, RunStatus::kOk, 5.0});
  CHECK(supersede_configurations(*db, e, {"hash-baseline"}) == 1);
  CHECK(supersede_configurations(*db, e, {"hash-baseline"}) == 0);  // already superseded
  ConfigurationRecord changed;
  changed.label = "v2";  // the same label, a new hash: allowed now
  changed.backend = "sim";
  changed.resolved_json = "{}";
  changed.config_hash = "hash-v2-changed";
  const auto new_v2 = ensure_configuration(*db, e, changed);
  CHECK(new_v2 != old_v2);
  changed.config_hash = "hash-v2-again";  // but two current ones may not share it
  CHECK_THROWS_AS(ensure_configuration(*db, e, changed), std::runtime_error);

  const auto current = list_configurations(*db, e);
  REQUIRE(current.size() == 2);
  CHECK(current[1].id == new_v2);
  CHECK(list_configurations(*db, e, true).size() == 3);
  const ExperimentRuns loaded = load_experiment_runs(*db, "e");
  REQUIRE(loaded.configs.size() == 2);
  CHECK(loaded.configs[1].config.config_hash == "hash-v2-changed");
  CHECK(loaded.configs[1].ok_runs.empty());  // the old runs stay with the old configuration
  const auto runs = list_runs(*db, "e");
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].config == "v2 [superseded hash-v2]");  // shown as before, from the column

  // The manifest changed back: the first v2 is current again, with its run; the second is not.
  CHECK(supersede_configurations(*db, e, {"hash-baseline", "hash-v2"}) == 1);
  const ExperimentRuns back = load_experiment_runs(*db, "e");
  REQUIRE(back.configs.size() == 2);
  CHECK(back.configs[1].config.id == old_v2);
  CHECK(back.configs[1].ok_runs.size() == 1);
}

TEST_CASE("migration 2: a store built by the old DDL keeps its rows, labels lose the suffix") {
  TempStore store("migrate");
  const auto db = culprit::testing::open_version1_store(
      store.path, "e",
      "INSERT INTO configurations (id, experiment_id, label, factor, level_json, is_baseline, "
      "backend, ranks, resolved_json, config_hash) VALUES "
      "(2, 1, 'v2 [superseded 0123456789ab]', 'version', '\"v2\"', 0, 'sim', 2, '{}', "
      "'0123456789abcdef'), "
      "(3, 1, 'v2', 'version', '\"v2\"', 0, 'sim', 2, '{}', 'fresh');"
      "INSERT INTO runs (experiment_id, config_id, repetition, position, seed, status, "
      "median_ms) VALUES (1, 1, 0, 0, 1, 'ok', 10), (1, 2, 0, 1, 1, 'ok', 11), "
      "(1, 3, 0, 2, 1, 'ok', 12)");
  CHECK(db->query_int("PRAGMA foreign_keys").value() == 1);
  CHECK(db->query_int("SELECT count(*) FROM runs").value() == 3);  // nothing cascaded away
  CHECK(db->query_int("SELECT count(*) FROM configurations").value() == 3);
  CHECK(db->query_text("SELECT label FROM configurations WHERE id = 2").value() == "v2");
  CHECK(db->query_int("SELECT superseded FROM configurations WHERE id = 2").value() == 1);
  CHECK(db->query_int("SELECT superseded FROM configurations WHERE id = 3").value() == 0);
  CHECK(db->query_int("SELECT superseded FROM configurations WHERE id = 1").value() == 0);
  CHECK(db->query_int("SELECT count(*) FROM pragma_foreign_key_check").value() == 0);
  const ExperimentRuns loaded = load_experiment_runs(*db, "e");
  REQUIRE(loaded.configs.size() == 2);
  CHECK(loaded.configs[1].config.id == 3);
  CHECK(loaded.configs[1].ok_runs.at(0).median_ms == 12.0);
  // Deleting an experiment still cascades through the rebuilt table.
  db->exec("DELETE FROM experiments");
  CHECK(db->query_int("SELECT count(*) FROM runs").value() == 0);
}
