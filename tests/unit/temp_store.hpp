#pragma once
// Test helpers for store files: a temporary store that removes itself, and a store as an old
// culprit (schema version 1) wrote it, for the migration tests.

#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "culprit/storage/db.hpp"
#include "culprit/storage/store.hpp"

namespace culprit::testing {

// A store path in the temporary folder; the file, its WAL files, its lock and its run folders
// are removed when the test starts and when it ends.
struct TempStore {
  std::string path;
  explicit TempStore(const std::string& name)
      : path((std::filesystem::temp_directory_path() / ("culprit_unit_" + name + ".db")).string()) {
    clean();
  }
  TempStore(const TempStore&) = delete;
  TempStore& operator=(const TempStore&) = delete;
  ~TempStore() { clean(); }
  void clean() const {
    for (const char* suffix : {"", "-wal", "-shm", ".lock"}) std::filesystem::remove(path + suffix);
    std::filesystem::remove_all(path + ".runs");
  }
};

// Writes at `path` a store of schema version 1 holding experiment 1 named `experiment` and its
// baseline configuration 1 (label "baseline", sim backend, 2 ranks, hash "hb"), runs `rows` (SQL
// of the further rows the test needs) on it, then opens it with this culprit, which migrates it
// to the current schema version (checked).
inline std::unique_ptr<storage::Db> open_version1_store(const std::string& path,
                                                        const std::string& experiment,
                                                        const std::string& rows) {
  {
    storage::Db old(path);
    old.exec(storage::store_migration(0));
    old.exec("PRAGMA user_version = 1");
    old.exec(
        "INSERT INTO experiments (id, name, manifest_path, manifest_text, manifest_hash, "
        "created_at) VALUES (1, '" +
        experiment +
        "', 'm.toml', '', 'h', 'now');"
        "INSERT INTO configurations (id, experiment_id, label, factor, level_json, is_baseline, "
        "backend, ranks, resolved_json, config_hash) VALUES "
        "(1, 1, 'baseline', '', 'null', 1, 'sim', 2, '{}', 'hb')");
    old.exec(rows);
  }
  auto db = storage::open_store(path);
  CHECK(storage::schema_version(*db) == storage::kStoreSchemaVersion);
  return db;
}

}  // namespace culprit::testing
