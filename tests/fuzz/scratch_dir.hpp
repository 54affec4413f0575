// Where the SQLite fuzz targets write each input: SQLite reads files, and on a disk file system
// every rewrite of the same file is flushed on close (ext4's replace-on-truncate heuristic), which
// made the syscalls a fifth of each execution. /dev/shm is memory; TMPDIR or /tmp otherwise.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace culprit::fuzz {

inline std::string scratch_dir() {
  std::error_code ec;
  if (std::filesystem::is_directory("/dev/shm", ec)) return "/dev/shm";
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

}  // namespace culprit::fuzz
