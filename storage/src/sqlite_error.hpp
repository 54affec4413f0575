#pragma once
// SQLite's error told as what it is. SQLite says "database or disk is full" (SQLITE_FULL) both
// for a full disk and for limits of its own (a page-count limit, a temporary file it could not
// write in one piece): a user who reads "disk is full" with gigabytes free looks in the wrong
// place, and the launcher would stop a whole sweep for an environment failure that is none.

#include <string>

namespace culprit::storage {

// The store's folder and SQLite's temporary folder hold less than this: a full disk.
inline constexpr unsigned long long kFullDiskBytes = 64ull * 1024 * 1024;

// `message` (sqlite3_errmsg) for `extended_code` on the store at `db_path`: SQLITE_FULL names
// the free space and says whether it is the disk (then it keeps SQLite's words, which the
// launcher classes as an environment failure) or an SQLite limit; SQLITE_TOOBIG names the
// connection's length limit (`length_limit`, sqlite3_limit SQLITE_LIMIT_LENGTH).
// Whether the store's folder or SQLite's temporary folder holds less than kFullDiskBytes.
bool disk_is_full(const std::string& db_path);

std::string describe_sqlite_error(const std::string& db_path, int extended_code,
                                  const std::string& message, int length_limit);

}  // namespace culprit::storage
