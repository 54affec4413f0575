#include <doctest/doctest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "culprit/errors.hpp"
#include "culprit/stats/stored.hpp"
#include "culprit/storage/db.hpp"
#include "culprit/storage/records.hpp"
#include "culprit/storage/store.hpp"

using namespace culprit;

namespace {

// A results store in a fresh temporary file, removed at the end of the test.
struct TempStore {
  std::filesystem::path path;
  std::unique_ptr<storage::Db> db;
  TempStore() {
    path = std::filesystem::temp_directory_path() /
           ("culprit-stats-test-" + std::to_string(std::random_device{}()) + ".db");
    db = storage::open_store(path.string());
  }
  ~TempStore() {
    db.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::filesystem::remove(path.string() + suffix);
    }
  }
};

std::int64_t add_config(storage::Db& db, std::int64_t experiment, const std::string& label,
                        const std::string& factor, bool baseline) {
  storage::ConfigurationRecord c;
  c.label = label;
  c.factor = factor;
  c.is_baseline = baseline;
  c.backend = "cpu";
  c.ranks = 2;
  c.resolved_json = "{}";
  c.config_hash = label;
  return storage::ensure_configuration(db, experiment, c);
}

// Adds runs with the given medians; `ok` ones get job provenance and a host per rank.
void add_runs(storage::Db& db, std::int64_t experiment, std::int64_t config,
              const std::vector<double>& medians, const std::string& yield_mode, int& position,
              const std::string& status = "ok") {
  for (std::size_t i = 0; i < medians.size(); ++i) {
    const auto run = storage::ensure_run(db, experiment, {config, position}, position++, 1, "");
    storage::mark_running(db, run.id, {"2024-01-01T00:00:00Z", "[]", "mpirun", "core"});
    storage::RunFinish finish;
    finish.status = storage::parse_run_status(status);
    finish.finished_at = "2024-01-01T00:00:01Z";
    if (status == "ok") finish.median_ms = medians[i];
    storage::finish_run(db, run.id, finish);
    storage::Statement p(
        db, "INSERT INTO provenance (run_id, rank, key, value) VALUES (?1, ?2, ?3, ?4)");
    for (const auto& [rank, key, value] :
         std::vector<std::tuple<int, std::string, std::string>>{{-1, "ranks_per_core", "1"},
                                                                {-1, "yield_mode", yield_mode},
                                                                {0, "host", "node1"},
                                                                {1, "host", "node1"}}) {
      p.bind(1, run.id).bind(2, rank).bind(3, key).bind(4, value);
      p.run();
    }
  }
}

}  // namespace

TEST_CASE("stored experiment: baseline vs every configuration, failed runs excluded") {
  TempStore store;
  auto& db = *store.db;
  storage::ExperimentRecord e;
  e.name = "reference";
  e.manifest_path = "ref.toml";
  const auto experiment = storage::insert_experiment(db, e);
  const auto base = add_config(db, experiment, "baseline", "", true);
  const auto v2 = add_config(db, experiment, "version=v2", "version", false);
  const auto v3 = add_config(db, experiment, "version=v3", "version", false);
  int position = 0;
  add_runs(db, experiment, base, {410, 411, 409, 412, 410.5, 409.5, 411.5, 408.5}, "default",
           position);
  add_runs(db, experiment, v2, {485, 486, 484, 487, 485.5, 484.5, 486.5, 483.5}, "default",
           position);
  add_runs(db, experiment, v2, {1}, "default", position, "failed");  // not a sample
  add_runs(db, experiment, v3, {1, 2}, "default", position, "crashed");

  const stats::StoredExperiment loaded = stats::load_stored_experiment(db, "");
  CHECK(loaded.name == "reference");
  REQUIRE(loaded.configs.size() == 3);
  CHECK(loaded.configs[0].is_baseline);
  CHECK(loaded.configs[0].environment.at("hosts") == "node1");
  CHECK(loaded.configs[0].environment.at("binding") == "core");
  CHECK(loaded.configs[0].environment.at("backend") == "cpu");
  CHECK(loaded.configs[1].medians_ms.size() == 8);

  stats::ComparisonRequest request;
  const stats::StoredComparisons result = stats::compare_stored(loaded, request);
  REQUIRE(result.comparisons.size() == 1);
  const auto& c = result.comparisons[0];
  CHECK(c.candidate_label == "version=v2");
  CHECK(c.baseline.n == 8);
  CHECK(c.comparison.shift == doctest::Approx(75));
  CHECK(c.comparison.verdict == stats::Verdict::kRegressed);
  REQUIRE(result.skipped.size() == 1);
  CHECK(result.skipped[0].label == "version=v3");

  request.candidate_label = "version=v3";
  CHECK_THROWS_WITH_AS(stats::compare_stored(loaded, request),
                       doctest::Contains("'version=v3' has no successful runs"), UsageError);
  request.candidate_label = "version=v9";
  CHECK_THROWS_WITH_AS(stats::compare_stored(loaded, request),
                       doctest::Contains("its configurations are: 'baseline' 'version=v2'"),
                       UsageError);
  CHECK_THROWS_AS(stats::load_stored_experiment(db, "no-such"), UsageError);
}

TEST_CASE("stored experiment: a yield-mode difference is refused, naming the fact") {
  TempStore store;
  auto& db = *store.db;
  storage::ExperimentRecord e;
  e.name = "env";
  const auto experiment = storage::insert_experiment(db, e);
  const auto base = add_config(db, experiment, "baseline", "", true);
  const auto v2 = add_config(db, experiment, "version=v2", "version", false);
  int position = 0;
  add_runs(db, experiment, base, {10, 11, 12, 10.5, 11.5, 12.5}, "default", position);
  add_runs(db, experiment, v2, {10, 11, 12, 10.5, 11.5, 12.5}, "mpi_yield_when_idle=1", position);
  const auto loaded = stats::load_stored_experiment(db, "env");
  CHECK_THROWS_WITH_AS(stats::compare_stored(loaded, {}),
                       doctest::Contains("yield_mode 'default' vs 'mpi_yield_when_idle=1'"),
                       UsageError);
}
