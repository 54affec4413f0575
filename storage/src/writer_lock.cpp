#include "culprit/storage/writer_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>

#include "culprit/errors.hpp"
#include "culprit/storage/records.hpp"

namespace culprit::storage {
namespace {

std::string host_name() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof buffer - 1) != 0) return "unknown-host";
  return buffer;
}

std::string read_holder(int fd) {
  std::string text;
  char buffer[512];
  ssize_t n = 0;
  off_t at = 0;
  while ((n = pread(fd, buffer, sizeof buffer, at)) > 0 && text.size() < 4096) {
    text.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text;
}

bool same_file(int fd, const std::string& path) {
  struct stat open_stat {
  }, path_stat{};
  if (fstat(fd, &open_stat) != 0 || stat(path.c_str(), &path_stat) != 0) return false;
  return open_stat.st_dev == path_stat.st_dev && open_stat.st_ino == path_stat.st_ino;
}

std::mutex registry_mutex;
std::map<std::string, std::weak_ptr<WriterLock>>& registry() {
  static std::map<std::string, std::weak_ptr<WriterLock>> locks;
  return locks;
}

// The store's own name with every symlink resolved, so that two names of one file (a symlink,
// a relative and an absolute path) share one lock file.
std::string real_path(const std::string& db_path) {
  std::error_code ec;
  const auto resolved = std::filesystem::weakly_canonical(db_path, ec);
  if (!ec) return resolved.string();
  const auto absolute = std::filesystem::absolute(db_path, ec);
  return ec ? db_path : absolute.lexically_normal().string();
}

}  // namespace

std::string writer_lock_path(const std::string& db_path) {
  return real_path(db_path) + ".lock";
}

WriterLock::WriterLock(std::string lock_path, int fd, std::string stale_holder)
    : lock_path_(std::move(lock_path)), fd_(fd), stale_holder_(std::move(stale_holder)) {}

WriterLock::~WriterLock() {
  // Closed only now, after the store's SQLite connection: closing any descriptor of a file
  // drops the process's POSIX locks on it, SQLite's included.
  if (database_fd_ >= 0) close(database_fd_);
  // Unlinked while still held: a writer waiting on the old file sees it is gone and retries.
  if (same_file(fd_, lock_path_)) unlink(lock_path_.c_str());
  close(fd_);
}

void WriterLock::lock_database_file(const std::string& db_path) {
  if (database_fd_ >= 0) return;  // shared within the process: locked once
  const int fd = open(db_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw UsageError("database " + db_path +
                     ": cannot open it to lock it: " + std::strerror(errno));
  }
  // flock on the file itself (its inode), independent of SQLite's POSIX record locks: a hard
  // link, whose name gives another lock file, still meets this one.
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    throw UsageError("database " + db_path +
                     " is being written by another culprit through another name of the same "
                     "file (a hard link): wait for it to finish, or use another --db (readers "
                     "such as `culprit runs` keep working meanwhile)");
  }
  database_fd_ = fd;
}

std::shared_ptr<WriterLock> WriterLock::acquire(const std::string& db_path) {
  const std::string lock_path = writer_lock_path(db_path);
  const std::lock_guard<std::mutex> guard(registry_mutex);
  if (auto held = registry()[lock_path].lock()) return held;

  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      const int code = errno;
      if (code == EROFS || code == EACCES || code == EPERM) {
        throw UsageError("database " + db_path + " is read-only for this user (cannot create " +
                         lock_path + ": " + std::strerror(code) +
                         "): read it with runs, compare, explain or export, or write to "
                         "another --db");
      }
      throw UsageError("database " + db_path + ": cannot create the writer lock " + lock_path +
                       ": " + std::strerror(code));
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const std::string holder = read_holder(fd);
      close(fd);
      throw UsageError("database " + db_path + " is being written by another culprit (" +
                       (holder.empty() ? std::string("holder unknown") : holder) + ", lock " +
                       lock_path +
                       "): wait for it to finish, or use another --db (readers such as "
                       "`culprit runs` keep working meanwhile)");
    }
    if (!same_file(fd, lock_path)) {  // the holder removed it as we opened it: take the new one
      close(fd);
      continue;
    }
    const std::string stale = read_holder(fd);
    const std::string me = "pid " + std::to_string(getpid()) + " on " + host_name() + " since " +
                           utc_now_iso8601() + "\n";
    if (ftruncate(fd, 0) != 0 || pwrite(fd, me.data(), me.size(), 0) < 0) {
      const int code = errno;
      close(fd);
      throw UsageError("database " + db_path + ": cannot write the writer lock " + lock_path +
                       ": " + std::strerror(code));
    }
    auto lock = std::make_shared<WriterLock>(lock_path, fd, stale);
    registry()[lock_path] = lock;
    return lock;
  }
  throw UsageError("database " + db_path + ": the writer lock " + lock_path +
                   " keeps changing; is something deleting it?");
}

}  // namespace culprit::storage
