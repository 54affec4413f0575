#pragma once
// One writer per results store. `culprit run`, import, bisect, validate, verdict and merge hold
// an exclusive lock on `<db>.lock` (flock; `<db>` with its symlinks resolved, so every name of
// the store that reaches it through a symlink meets the same lock) and on the database file
// itself (flock on its inode: a hard link meets it too) for as long as they write; the file names
// the holder
// ("pid PID on HOST since TIME") so a refused writer can say who it is. The kernel drops the
// lock when its holder dies, so a lock file left by a killed culprit is stale by construction:
// the next writer takes it over and says so. Readers never take the lock (SQLite's WAL lets
// them read while the writer writes).

#include <memory>
#include <string>

namespace culprit::storage {

class WriterLock {
 public:
  // Takes the lock for the store at `db_path`. Throws culprit::UsageError naming the holder
  // when another process holds it, or when the lock file cannot be created (read-only folder).
  // Within one process the lock is shared: a second acquire of the same store returns the
  // holder's lock.
  static std::shared_ptr<WriterLock> acquire(const std::string& db_path);

  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;
  ~WriterLock();

  // Locks the database file itself once it exists (open_store calls it after SQLite opened or
  // created the file). Throws culprit::UsageError when another process holds it under another
  // name (a hard link). The descriptor stays open until the lock goes.
  void lock_database_file(const std::string& db_path);

  const std::string& path() const { return lock_path_; }
  // What the lock file said before this process took it over ("" when it was new).
  const std::string& stale_holder() const { return stale_holder_; }

  struct Private;
  WriterLock(std::string lock_path, int fd, std::string stale_holder);

 private:
  std::string lock_path_;
  int fd_ = -1;
  int database_fd_ = -1;
  std::string stale_holder_;
};

// "<db_path with its symlinks resolved>.lock".
std::string writer_lock_path(const std::string& db_path);

}  // namespace culprit::storage
