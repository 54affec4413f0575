#include "sqlite_error.hpp"

#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

namespace culprit::storage {
namespace {

namespace fs = std::filesystem;

// Where SQLite puts its temporary files (os_unix.c's order): the first folder that exists.
fs::path sqlite_temp_dir() {
  std::vector<fs::path> candidates;
  for (const char* var : {"SQLITE_TMPDIR", "TMPDIR"}) {
    if (const char* value = std::getenv(var); value && *value) candidates.emplace_back(value);
  }
  for (const char* dir : {"/var/tmp", "/usr/tmp", "/tmp"}) candidates.emplace_back(dir);
  std::error_code ec;
  for (const fs::path& dir : candidates) {
    if (fs::is_directory(dir, ec)) return dir;
  }
  return ".";
}

struct Free {
  fs::path dir;
  std::uintmax_t bytes = 0;
};

// The fuller of the store's folder and the temporary folder; nullopt when neither answers.
std::optional<Free> least_free(const std::string& db_path) {
  fs::path store_dir = fs::path(db_path).parent_path();
  if (store_dir.empty()) store_dir = ".";
  std::optional<Free> least;
  for (const fs::path& dir : {store_dir, sqlite_temp_dir()}) {
    std::error_code ec;
    const fs::space_info space = fs::space(dir, ec);
    if (ec) continue;
    if (!least || space.available < least->bytes) least = Free{dir, space.available};
  }
  return least;
}

std::string human_bytes(std::uintmax_t bytes) {
  const bool gib = bytes >= (1ull << 30);
  char text[48];
  std::snprintf(text, sizeof text, "%.1f %s",
                static_cast<double>(bytes) / static_cast<double>(gib ? 1ull << 30 : 1ull << 20),
                gib ? "GiB" : "MiB");
  return text;
}

std::string describe_full(const std::string& db_path, const std::string& message) {
  const std::optional<Free> free = least_free(db_path);
  if (!free) return message + " (the free space of its folder could not be read)";
  if (free->bytes < kFullDiskBytes) {
    return message + " (" + human_bytes(free->bytes) + " free on " + free->dir.string() +
           "): free space, then run the command again";
  }
  return "SQLite stopped with SQLITE_FULL although " + free->dir.string() + " has " +
         human_bytes(free->bytes) +
         " free: not the disk, a limit of SQLite (its page-count limit, or a temporary file it "
         "could not write); nothing of this statement was kept. Report it with the command that "
         "failed";
}

}  // namespace

bool disk_is_full(const std::string& db_path) {
  const std::optional<Free> free = least_free(db_path);
  return free && free->bytes < kFullDiskBytes;
}

std::string describe_sqlite_error(const std::string& db_path, int extended_code,
                                  const std::string& message, int length_limit) {
  switch (extended_code & 0xff) {
    case SQLITE_FULL:
      return describe_full(db_path, message);
    case SQLITE_TOOBIG:
      return message + ": a value is larger than SQLite's limit of " +
             std::to_string(length_limit) + " bytes (SQLITE_TOOBIG), not a full disk";
    default:
      return message;
  }
}

}  // namespace culprit::storage
