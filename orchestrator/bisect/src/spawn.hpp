#pragma once
// Child processes for version sources (git, build commands): argv arrays, never a shell.

#include <string>
#include <vector>

namespace culprit::bisect::detail {

struct SpawnResult {
  bool started = false;
  int exit_code = -1;  // -1 when it did not exit normally
  int signal = 0;      // the signal that ended it, 0 when none
  std::string output;  // stdout (capture only)
  std::string error;   // why it did not start
  bool ok() const { return started && exit_code == 0; }
  std::string describe() const;  // "exit status 2", "signal 9", "could not start: ..."
};

// Runs argv in `cwd` ("" = here) with stdout and stderr appended to `log_path`.
SpawnResult run_logged(const std::vector<std::string>& argv, const std::string& cwd,
                       const std::string& log_path);

// Runs argv and returns its stdout; stderr goes to `log_path` ("" = /dev/null).
SpawnResult run_captured(const std::vector<std::string>& argv, const std::string& log_path = "");

}  // namespace culprit::bisect::detail
