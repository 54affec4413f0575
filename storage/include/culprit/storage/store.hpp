#pragma once
// The results store: one SQLite file (WAL, foreign keys) holding experiments, configurations,
// runs and every step of every rank. Schema in docs/schema.md ("Results store").

#include <memory>
#include <string>

#include "culprit/storage/db.hpp"

namespace culprit::storage {

// 2: configurations.superseded is a column (no label suffix).
// 3: events interned (kind and name as integers, names per run in run_event_names).
// 4: events packed per run and rank (run_event_packs; event_rows dropped).
inline constexpr int kStoreSchemaVersion = 7;

// Opens the store at `path`, creating it or migrating it forward to kStoreSchemaVersion.
// Refuses (std::runtime_error) a store written by a newer culprit.
std::unique_ptr<Db> open_store(const std::string& path);

// Opens an existing store read-only (reporting commands): never creates a file.
// Throws culprit::UsageError when the file does not exist.
std::unique_ptr<Db> open_existing_store(const std::string& path);

// The SQL that takes a store from `from_version` to from_version + 1 (0 <= from_version <
// kStoreSchemaVersion); open_store applies them in order. Tests build older stores with it.
std::string store_migration(int from_version);

// The schema version recorded in the store (0 for an empty file).
int schema_version(Db& db);

// The folders culprit keeps beside a store, each named after the store's file by one rule
// ("<db>.runs", "<db>.builds", "<db>.slurm"), so every command finds what another left there.
enum class StoreFolder {
  kRuns,    // run folders of a sweep (run files, logs), removed when left empty
  kBuilds,  // worktrees, build logs and build outcomes of bisected git commits
  kSlurm,   // a sweep submitted as Slurm job arrays: batch scripts, logs, its record
};
std::string store_folder(const std::string& db_path, StoreFolder folder);
// The store whose run folder holds `run_file` (<db>.runs/<run>.<attempt>/run.db -> <db>), empty
// when the path is not in such a folder.
std::string store_of_run_file(const std::string& run_file);

}  // namespace culprit::storage
