#pragma once
// Typed failures of the core library. The CLI maps each to the exit code of the interface
// contract (docs/cli.md); messages say what went wrong, where, and what to do.

#include <stdexcept>
#include <string>

namespace culprit {

// Bad usage or a bad manifest (exit 2). Nothing has been written when this is thrown.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A result could not be written whole (full disk, /dev/full): exit 1, like a failed stdout.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A run or a launch failed (exit 5).
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The regression could not be reproduced (exit 3).
class NotReproduced : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The evidence stays inconclusive at the sampling cap (exit 4).
class Inconclusive : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace culprit
