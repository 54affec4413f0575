#include "culprit/storage/db.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "sqlite_error.hpp"

#include "culprit/errors.hpp"

namespace culprit::storage {
namespace {

// A statement journal (the undo of one statement inside a transaction) is kept in memory, never
// spilled to a temporary file. SQLite's default spills at 64 KiB, less than one of the store's
// 64 KiB pages, so each statement that changed a page wrote a file to /var/tmp (an import of
// 2,500 events wrote 3.9 MB instead of 2.4, bench_import "written"). A larger positive threshold
// is not safe: SQLite makes the threshold the in-memory journal's chunk size and, on spilling,
// writes each chunk with one write of that size, while its Unix layer caps one write at
// 128 KiB - 1 bytes (`nBuf &= 0x1ffff`). With the 1 MiB threshold used before, a 1 MiB chunk
// became a write of 0 bytes and SQLite reported SQLITE_FULL, "database or disk is full", with
// the disk nearly empty: the copy of a 5,000-rank run's event packs journals more than 1 MiB of
// the store's existing pages (issue 36; seen with strace as a 65,600-byte and then a 0-byte
// pwrite to the statement journal's etilqs_* file, the statement then aborted). In memory, a
// statement journal costs the store pages that one statement changes and that existed before
// it (a few pages for the appends of an ingest). SQLite takes the setting only before it
// initialises, i.e. before the process's first connection: hence a static initialiser.
const bool kStatementJournalsInMemory =
    sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, -1) == SQLITE_OK;

}  // namespace

bool statement_journals_in_memory() {
  return kStatementJournalsInMemory;
}

Db::Db(const std::string& path, Mode mode) : path_(path), mode_(mode) {
  // NOMUTEX: a connection is never used by two threads at once (a thread that needs the store
  // opens its own), so SQLite's per-call mutex is pure cost (a fifth of loading a large run).
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  std::string name = path;
  if (mode == Mode::kReadOnly) flags = SQLITE_OPEN_READONLY;
  if (mode == Mode::kImmutable) {
    flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
    name = "file:";
    for (const char c : path) {  // percent-encode what a URI path cannot hold as is
      if (c == '%' || c == '?' || c == '#') {
        static const char* const kHex = "0123456789ABCDEF";
        name += '%';
        name += kHex[(static_cast<unsigned char>(c) >> 4) & 0xF];
        name += kHex[static_cast<unsigned char>(c) & 0xF];
      } else {
        name += c;
      }
    }
    name += "?immutable=1";
  }
  flags |= SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(name.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error("database " + path + ": cannot open: " + message);
  }
  // Concurrent readers (culprit runs while culprit compare reads) wait instead of failing.
  sqlite3_busy_timeout(db_, 10000);
  sqlite3_extended_result_codes(db_, 1);
}

Db::~Db() {
  sqlite3_close(db_);
  held_.reset();  // the writer lock goes only after the last write is on disk
}

void Db::fail(std::string_view what) const {
  const int last_errno = errno;
  throw_error(std::string(what) + ": ", sqlite3_errmsg(db_), last_errno);
}

void Db::throw_error(const std::string& what, const std::string& message, int last_errno) const {
  // SQLite keeps no errno for a write cut short by the file size limit: errno still holds it.
  const int os_error = sqlite3_system_errno(db_) != 0 ? sqlite3_system_errno(db_) : last_errno;
  const int code = sqlite3_extended_errcode(db_);
  const bool no_room = os_error == ENOSPC || os_error == EFBIG || os_error == EDQUOT;
  // A full disk, quota or file size limit is the user's to fix (exit 2), not culprit's fault;
  // the transaction that met it is rolled back, so nothing already stored is lost. SQLITE_FULL
  // with room on the disk and no such error is an SQLite limit (issue 36), said as one.
  if (((code & 0xff) == SQLITE_FULL && (no_room || disk_is_full(path_))) ||
      ((code & 0xff) == SQLITE_IOERR && no_room)) {
    throw UsageError("database " + path_ + ": " + what + message + " (" +
                     std::strerror(os_error != 0 ? os_error : ENOSPC) +
                     "): free space on its file system (or write to another --db) and run the "
                     "command again; nothing already stored was lost");
  }
  throw std::runtime_error("database " + path_ + ": " + what +
                           describe_sqlite_error(path_, code, message, length_limit()));
}

void Db::exec(std::string_view sql) {
  char* error = nullptr;
  std::string text(sql);
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const int last_errno = errno;
    std::string message = error ? error : "unknown error";
    sqlite3_free(error);
    throw_error("", message, last_errno);
  }
}

int Db::length_limit() const {
  return sqlite3_limit(db_, SQLITE_LIMIT_LENGTH, -1);
}

std::int64_t Db::last_insert_id() const {
  return sqlite3_last_insert_rowid(db_);
}
int Db::changes() const {
  return sqlite3_changes(db_);
}

std::optional<std::int64_t> Db::query_int(std::string_view sql) {
  Statement stmt(*this, sql);
  if (!stmt.step() || stmt.column_is_null(0)) return std::nullopt;
  return stmt.column_int(0);
}

std::optional<std::string> Db::query_text(std::string_view sql) {
  Statement stmt(*this, sql);
  if (!stmt.step() || stmt.column_is_null(0)) return std::nullopt;
  return stmt.column_text(0);
}

Statement::Statement(Db& db, std::string_view sql) : db_(&db) {
  if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) !=
      SQLITE_OK) {
    db.fail("cannot prepare '" + std::string(sql.substr(0, 80)) + "'");
  }
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), purpose_(std::move(other.purpose_)) {
  other.stmt_ = nullptr;
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

Statement& Statement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}
Statement& Statement::bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}
Statement& Statement::bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::bind_blob(int index, std::span<const unsigned char> value) {
  sqlite3_bind_blob(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
  return *this;
}
Statement& Statement::bind_null(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

Statement& Statement::purpose(std::string text) {
  purpose_ = std::move(text);
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail(purpose_.empty() ? "step failed" : purpose_);
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::int64_t Statement::column_int(int index) const {
  return sqlite3_column_int64(stmt_, index);
}
void Statement::throw_does_not_fit(int index, std::int64_t value, std::size_t bits) const {
  const char* name = sqlite3_column_name(stmt_, index);
  throw std::invalid_argument("column " + std::string(name != nullptr ? name : "?") + " holds " +
                              std::to_string(value) + ", which does not fit " +
                              std::to_string(bits) + " bits");
}
double Statement::column_double(int index) const {
  return sqlite3_column_double(stmt_, index);
}
std::string_view Statement::column_view(int index) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, index));
  if (!text) return {};
  return {text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, index))};
}
std::string Statement::column_text(int index) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, index));
  return text ? std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, index)))
              : std::string();
}
std::span<const unsigned char> Statement::column_blob(int index) const {
  const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(stmt_, index));
  if (!data) return {};
  return {data, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, index))};
}
bool Statement::column_is_null(int index) const {
  return sqlite3_column_type(stmt_, index) == SQLITE_NULL;
}

Transaction::Transaction(Db& db, bool immediate) : db_(db) {
  db_.exec(immediate ? "BEGIN IMMEDIATE" : "BEGIN");
}
Transaction::~Transaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) {  // a destructor must not throw; the rollback is best effort
    }
  }
}
void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace culprit::storage
