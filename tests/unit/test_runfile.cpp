#include <doctest/doctest.h>
#include <sqlite3.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "runfile/meta_keys.hpp"
#include "stepclock/runfile.hpp"

namespace {
long long scalar(sqlite3* db, const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
  long long v = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  return v;
}
}  // namespace

TEST_CASE("run file is written whole under its final name") {
  auto dir = std::filesystem::temp_directory_path() / "culprit_unit_runfile";
  std::filesystem::create_directories(dir);
  auto path = (dir / "run.db").string();
  std::filesystem::remove(path);

  stepclock::RunFileContents c;
  c.names = {"gemm.fwd", "allreduce"};
  stepclock::EventRecord e;
  e.rank = 1;
  e.step = 0;
  e.begin_ns = 100;
  e.end_ns = 250;
  c.events.push_back(e);
  e.name = 1;
  e.kind = stepclock::EventKind::kCollective;
  e.seq = 0;
  e.bytes = 4096;
  c.events.push_back(e);
  c.clocks.push_back({1, "host", 0, 12.5, 3.0, 40.0, 80.0, 90.0, 10});
  c.meta = {{"ranks", "2"}};
  c.provenance.push_back({-1, "mpi_version", "Open MPI 4.1"});
  c.config_json = "{}";
  stepclock::write_run_file(path, c);

  REQUIRE(std::filesystem::exists(path));
  for (auto& entry : std::filesystem::directory_iterator(dir)) {
    CHECK(entry.path().filename().string().find(".tmp.") == std::string::npos);
  }
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  CHECK(scalar(db, "SELECT count(*) FROM events") == 2);
  CHECK(scalar(db, "SELECT bytes FROM events WHERE kind='collective' AND name='allreduce'") ==
        4096);
  CHECK(scalar(db, "SELECT end_ns - begin_ns FROM events WHERE name='gemm.fwd'") == 150);
  CHECK(scalar(db, "SELECT exchanges FROM clock_models WHERE rank=1") == 10);
  CHECK(scalar(db, "SELECT value FROM meta WHERE key='format_version'") == 3);
  // Interned and packed: one pack per rank, the text through the events view.
  CHECK(scalar(db, "SELECT count(*) FROM event_names") == 2);
  CHECK(scalar(db, "SELECT count(*) FROM event_rows") == 0);
  CHECK(scalar(db, "SELECT rank * 100 + events FROM event_packs") == 102);
  sqlite3_close(db);

  stepclock::RunFileContents bad = c;
  bad.events[0].name = 7;
  CHECK_THROWS(stepclock::write_run_file(path + "2", bad));
  CHECK_FALSE(std::filesystem::exists(path + "2"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("the run-file DDL has one text, split by table for the store") {
  const std::string all(runfile::schema_sql());
  CHECK(all.find("CREATE TABLE event_rows (") != std::string::npos);
  const std::string rows = runfile::schema_statements("event_rows");
  CHECK(rows.rfind("CREATE TABLE event_rows (", 0) == 0);
  CHECK(rows.find("stream     INTEGER NOT NULL\n);") != std::string::npos);
  CHECK(rows.find("event_names") == std::string::npos);
  const std::string kinds = runfile::schema_statements("event_kinds");
  CHECK(kinds.find("INSERT INTO event_kinds") != std::string::npos);
  for (int k = 0; k < runfile::kEventKindCount; ++k) {
    const std::string text = runfile::event_kind_name(static_cast<runfile::EventKind>(k));
    CHECK(kinds.find("(" + std::to_string(k) + ", '" + text + "')") != std::string::npos);
  }
  CHECK_THROWS_AS(runfile::schema_statements("no_such_table"), std::logic_error);
}

// Issue 33: the run meta keys have one owner. meta_keys.tsv (read by the Python module and the
// docs) and the constants writers and readers use list the same keys in the same order.
TEST_CASE("the run meta keys: meta_keys.tsv and runfile::meta list the same keys") {
  std::vector<std::string> listed;
  std::string table(runfile::meta::keys_table());
  std::size_t start = 0;
  while (start < table.size()) {
    std::size_t end = table.find('\n', start);
    if (end == std::string::npos) end = table.size();
    const std::string line = table.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line[0] == '#') continue;
    const std::size_t tab = line.find('\t');
    REQUIRE_MESSAGE(tab != std::string::npos, "meta_keys.tsv line without a tab: ", line);
    listed.push_back(line.substr(0, tab));
  }
  REQUIRE(listed.size() == runfile::meta::kAll.size());
  for (std::size_t i = 0; i < listed.size(); ++i) {
    CAPTURE(i);
    CHECK(listed[i] == runfile::meta::kAll[i]);
  }
  CHECK(runfile::meta::is_culprit_key("warmup_steps"));
  CHECK_FALSE(runfile::meta::is_culprit_key("tokens_per_second"));  // an application's own
}
