#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "runfile/meta_keys.hpp"
#include "runfile/packed.hpp"
#include "runfile/run_file.hpp"

namespace runfile {
namespace {

class Database {
 public:
  explicit Database(const std::string& path) : path_(path) {
    if (sqlite3_open_v2(path.c_str(), &db_,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
      std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw std::runtime_error("run file " + path + ": cannot create: " + message);
    }
  }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database() { sqlite3_close(db_); }

  void exec(const char* sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
      std::string message = error ? error : "unknown error";
      sqlite3_free(error);
      throw std::runtime_error("run file " + path_ + ": " + message);
    }
  }
  sqlite3* handle() { return db_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(Database& db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db.handle(), sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      throw std::runtime_error("run file " + db.path() + ": " + sqlite3_errmsg(db.handle()));
    }
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(stmt_); }

  void bind(int index, std::int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
  void bind(int index, double value) { sqlite3_bind_double(stmt_, index, value); }
  // Text is bound without a copy (SQLITE_STATIC): the string must outlive the step, so binding
  // a temporary is refused at compile time.
  void bind(int index, std::string&& value) = delete;
  void bind(int index, const std::string& value) {
    sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
  }
  void bind_blob(int index, const std::vector<unsigned char>& value) {
    sqlite3_bind_blob(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
  }
  void bind_static(int index, const char* value) {
    sqlite3_bind_text(stmt_, index, value, -1, SQLITE_STATIC);
  }
  void step_and_reset() {
    if (sqlite3_step(stmt_) != SQLITE_DONE) {
      throw std::runtime_error("run file " + db_.path() + ": " + sqlite3_errmsg(db_.handle()));
    }
    sqlite3_reset(stmt_);
  }

 private:
  Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// The events go in as one pack per rank (runfile/packed.hpp): a few thousand blob inserts
// instead of a row per event, which was most of the time of writing a 13 M-event run.
void write_packs(Database& db, const std::vector<EventPack>& packs) {
  Statement insert(db, "INSERT INTO event_packs (rank, events, data) VALUES (?, ?, ?)");
  for (const EventPack& pack : packs) {
    insert.bind(1, std::int64_t{pack.rank});
    insert.bind(2, pack.count);
    insert.bind_blob(3, pack.data);
    insert.step_and_reset();
  }
}

void write_names(Database& db, const RunFileContents& contents) {
  Statement insert(db, "INSERT INTO event_names (id, name) VALUES (?, ?)");
  for (std::size_t i = 0; i < contents.names.size(); ++i) {
    insert.bind(1, static_cast<std::int64_t>(i));
    insert.bind(2, contents.names[i]);
    insert.step_and_reset();
  }
}

void write_clocks(Database& db, const RunFileContents& contents) {
  Statement insert(db,
                   "INSERT INTO clock_models (rank, host, ref_ns, offset_ns, drift_ppm, "
                   "uncertainty_ns, start_rtt_ns, end_rtt_ns, exchanges) "
                   "VALUES (?,?,?,?,?,?,?,?,?)");
  for (const ClockModel& c : contents.clocks) {
    insert.bind(1, std::int64_t{c.rank});
    insert.bind(2, c.host);
    insert.bind(3, c.ref_ns);
    insert.bind(4, c.offset_ns);
    insert.bind(5, c.drift_ppm);
    insert.bind(6, c.uncertainty_ns);
    insert.bind(7, c.start_rtt_ns);
    insert.bind(8, c.end_rtt_ns);
    insert.bind(9, std::int64_t{c.exchanges});
    insert.step_and_reset();
  }
}

void write_metadata(Database& db, const RunFileContents& contents) {
  Statement meta(db, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
  meta.bind_static(1, meta::kFormatVersion);
  std::string version = std::to_string(kFormatVersion);
  meta.bind(2, version);
  meta.step_and_reset();
  for (const auto& [key, value] : contents.meta) {
    meta.bind(1, key);
    meta.bind(2, value);
    meta.step_and_reset();
  }
  Statement provenance(db, "INSERT OR REPLACE INTO provenance (rank, key, value) VALUES (?, ?, ?)");
  for (const ProvenanceEntry& p : contents.provenance) {
    provenance.bind(1, std::int64_t{p.rank});
    provenance.bind(2, p.key);
    provenance.bind(3, p.value);
    provenance.step_and_reset();
  }
  Statement echo(db, "INSERT INTO config_echo (id, json) VALUES (1, ?)");
  echo.bind(1, contents.config_json);
  echo.step_and_reset();
}

// SQLite runs with synchronous=OFF for speed, so durability comes from one fsync before rename.
void sync_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw std::runtime_error("run file " + path + ": cannot reopen to sync");
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) throw std::runtime_error("run file " + path + ": fsync failed");
}

}  // namespace

void check_contents(const RunFileContents& contents, const std::string& where) {
  for (const EventRecord& e : contents.events) {
    if (e.name >= contents.names.size()) {
      throw std::runtime_error(where + ": event name index " + std::to_string(e.name) +
                               " is not interned");
    }
    if (e.rank < 0) throw std::runtime_error(where + ": event of rank " + std::to_string(e.rank));
  }
  std::unordered_set<std::string_view> names;
  for (const std::string& name : contents.names) {
    if (!names.insert(name).second) {
      throw std::runtime_error(where + ": event name '" + name + "' is interned twice");
    }
  }
  std::unordered_set<std::int32_t> ranks;
  for (const ClockModel& c : contents.clocks) {
    if (!ranks.insert(c.rank).second) {
      throw std::runtime_error(where + ": two clock models of rank " + std::to_string(c.rank));
    }
  }
}

namespace {

// Writes a run file atomically: `header`'s tables, then `write_events(db)`, in a temporary file
// beside `path` that is synced (kDurable) and renamed.
template <class WriteEvents>
void write_file(const std::string& path, const RunFileContents& header, Durability durability,
                WriteEvents&& write_events) {
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  std::filesystem::remove(temp);
  try {
    {
      Database db(temp);
      // The file is private until the rename, so no journal, no locking and a large cache.
      db.exec(
          "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
          "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536;");
      check_contents(header, "run file " + path);
      db.exec("BEGIN");
      db.exec(std::string(schema_sql()).c_str());
      write_metadata(db, header);
      write_clocks(db, header);
      write_names(db, header);
      write_events(db);
      db.exec("COMMIT");
    }
    if (durability == Durability::kDurable) sync_file(temp);
    std::filesystem::rename(temp, path);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw;
  }
}

}  // namespace

void write_run_file(const std::string& path, const RunFileContents& contents,
                    Durability durability) {
  write_file(path, contents, durability,
             [&](Database& db) { write_packs(db, pack_by_rank(contents.events)); });
}

void write_run_file(const std::string& path, const RunFileContents& header, std::int32_t ranks,
                    const RankEventSource& events, Durability durability) {
  if (!header.events.empty()) {
    throw std::logic_error("write_run_file: events come from the source, not the header");
  }
  write_file(path, header, durability, [&](Database& db) {
    std::vector<EventRecord> rank_events;
    std::vector<EventPack> packs;
    RunFileContents checked;  // the header's names, to check each rank's events against
    checked.names = header.names;
    for (std::int32_t rank = 0; rank < ranks; ++rank) {
      rank_events.clear();
      events(rank, rank_events);
      for (const EventRecord& e : rank_events) {
        if (e.rank != rank) {
          throw std::runtime_error("run file " + path + ": rank " + std::to_string(rank) +
                                   "'s events hold one of rank " + std::to_string(e.rank));
        }
      }
      checked.events.swap(rank_events);
      check_contents(checked, "run file " + path);
      checked.events.swap(rank_events);
      packs.clear();
      pack_rank(rank_events, packs);
      write_packs(db, packs);
    }
  });
}

}  // namespace runfile
