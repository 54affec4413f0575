#pragma once
// Typed failures of the core library. Each carries the exit code of the interface contract
// (docs/cli.md) that main() returns for it; messages say what went wrong, where, and what to do.

#include <stdexcept>
#include <string>

namespace culprit {

// A failure that ends the command with `exit_code()`.
class Error : public std::runtime_error {
 public:
  Error(const std::string& what, int exit_code) : std::runtime_error(what), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// One type per exit code, so callers can catch the kind of failure they handle.
template <int ExitCode>
class ErrorWithExitCode : public Error {
 public:
  explicit ErrorWithExitCode(const std::string& what) : Error(what, ExitCode) {}
};

// Bad usage or a bad manifest (exit 2). Nothing has been written when this is thrown.
using UsageError = ErrorWithExitCode<2>;
// A result could not be written whole (full disk, /dev/full): exit 1, like a failed stdout.
using OutputError = ErrorWithExitCode<1>;
// A run or a launch failed (exit 5).
using RunError = ErrorWithExitCode<5>;
// The regression could not be reproduced (exit 3).
using NotReproduced = ErrorWithExitCode<3>;
// The evidence stays inconclusive at the sampling cap (exit 4).
using Inconclusive = ErrorWithExitCode<4>;

}  // namespace culprit
