#pragma once
// Thin RAII wrapper over the SQLite C API used by every module that touches the store.
// Errors throw std::runtime_error naming the database file and what failed, SQLite's message
// told as what it is (describe_sqlite_error: a full disk is told apart from an SQLite limit).

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace culprit::storage {

class Db;

class Statement {
 public:
  Statement(Db& db, std::string_view sql);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  ~Statement();

  // Binds are 1-based like SQLite's. Returns *this so calls chain.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);  // copied (SQLITE_TRANSIENT)
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind_null(int index);
  // The value, or NULL for nullopt.
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }
  // Binds `values` to ?1, ?2, ... in order.
  template <typename... T>
  Statement& bind_all(const T&... values) {
    int index = 0;
    (bind(++index, values), ...);
    return *this;
  }
  // A blob, not copied: it must stay alive until the statement is stepped.
  Statement& bind_blob(int index, std::span<const unsigned char> value);

  // What the statement does, for its error message ("copying the run file's event packs"):
  // a failure then reads "database PATH: PURPOSE: WHY" instead of "...: step failed: WHY".
  Statement& purpose(std::string text);

  // Advances; true while a row is available.
  bool step();
  // Runs a statement that returns no rows, then resets it for reuse.
  void run();
  void reset();

  std::int64_t column_int(int index) const;
  double column_double(int index) const;
  std::string column_text(int index) const;
  // The same without a copy: valid until the next step(), reset() or column call on it.
  std::string_view column_view(int index) const;
  bool column_is_null(int index) const;
  // A blob without a copy (valid as column_view's text).
  std::span<const unsigned char> column_blob(int index) const;
  // Reads columns first, first+1, ... of the current row into `out` in order, each by its type
  // (the mirror of bind_all): an integer or enum type, bool (non-zero), double, std::string, or a
  // std::optional of one (nullopt for NULL). One call per row keeps the SELECT's column list
  // and the fields it fills side by side instead of a hand-counted index per field.
  template <typename... T>
  void columns_at(int first, T&... out) const {
    int index = first;
    (column_into(index++, out), ...);
  }
  template <typename... T>
  void columns(T&... out) const {
    columns_at(0, out...);
  }
  sqlite3_stmt* handle() { return stmt_; }

 private:
  template <typename T>
  struct IsOptional : std::false_type {};
  template <typename T>
  struct IsOptional<std::optional<T>> : std::true_type {};

  template <typename T>
  void column_into(int index, T& out) const {
    if constexpr (IsOptional<T>::value) {
      if (column_is_null(index)) {
        out.reset();
      } else {
        column_into(index, out.emplace());
      }
    } else if constexpr (std::is_same_v<T, bool>) {
      out = column_int(index) != 0;
    } else if constexpr (std::is_enum_v<T>) {
      out = static_cast<T>(column_fitting<std::underlying_type_t<T>>(index));
    } else if constexpr (std::is_integral_v<T>) {
      out = column_fitting<T>(index);
    } else if constexpr (std::is_floating_point_v<T>) {
      out = static_cast<T>(column_double(index));
    } else {
      static_assert(std::is_same_v<T, std::string>, "columns: integer, bool, double or string");
      out = column_text(index);
    }
  }

  // An integer column read into a narrower type must fit it: a value that does not is a
  // corrupt or foreign row, never a number to wrap around.
  template <typename T>
  T column_fitting(int index) const {
    const std::int64_t value = column_int(index);
    if (!std::in_range<T>(value)) throw_does_not_fit(index, value, sizeof(T) * 8);
    return static_cast<T>(value);
  }
  [[noreturn]] void throw_does_not_fit(int index, std::int64_t value, std::size_t bits) const;

  Db* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string purpose_;
};

// Whether SQLite took culprit's setting that keeps statement journals in memory instead of a
// temporary file per statement (db.cpp says why); false only if SQLite was initialised before.
bool statement_journals_in_memory();

class Db {
 public:
  // kImmutable: read-only for a file nobody may write (read-only mount, another user's store
  // in a folder this user cannot write): SQLite then needs no -shm/-wal files beside it.
  enum class Mode { kReadWrite, kReadOnly, kImmutable };
  // Opens (creating with kReadWrite) a database file. Does not apply the schema: use
  // open_store() for the results store.
  explicit Db(const std::string& path, Mode mode = Mode::kReadWrite);
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db();

  void exec(std::string_view sql);
  std::int64_t last_insert_id() const;
  int changes() const;
  // Single-value queries; nullopt when no row.
  std::optional<std::int64_t> query_int(std::string_view sql);
  std::optional<std::string> query_text(std::string_view sql);

  const std::string& path() const { return path_; }
  // How another connection that only reads this file opens it: immutable where this one is (a
  // read-only mount or another user's store, where SQLite cannot make the -shm file), else
  // read-only.
  Mode reader_mode() const { return mode_ == Mode::kImmutable ? mode_ : Mode::kReadOnly; }
  sqlite3* handle() { return db_; }
  [[noreturn]] void fail(std::string_view what) const;
  // SQLite's largest string or blob on this connection (SQLITE_LIMIT_LENGTH), in bytes.
  int length_limit() const;
  // Throws culprit::UsageError for a full disk, quota or file size limit (SQLITE_FULL or IOERR
  // with ENOSPC / EDQUOT / EFBIG from SQLite or `last_errno`, or SQLITE_FULL with the disk
  // nearly full), else std::runtime_error with SQLite's error told as what it is
  // (describe_sqlite_error: an SQLITE_FULL with room on the disk is an SQLite limit).
  [[noreturn]] void throw_error(const std::string& what, const std::string& message,
                                int last_errno) const;
  // Keeps `resource` (e.g. the store's WriterLock) alive as long as this connection.
  void hold(std::shared_ptr<void> resource) { held_ = std::move(resource); }

 private:
  std::string path_;
  Mode mode_ = Mode::kReadWrite;
  sqlite3* db_ = nullptr;
  std::shared_ptr<void> held_;  // released after the connection closes (see ~Db)
};

// Commits on commit(), rolls back when destroyed without it, so a half-done change never lands.
class Transaction {
 public:
  explicit Transaction(Db& db, bool immediate = true);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  Db& db_;
  bool done_ = false;
};

}  // namespace culprit::storage
