#pragma once
// Ctrl-C, SIGTERM and SIGHUP (the terminal closed) while a sweep runs: the handler only records the
// signal; the process loop forwards it to the running launch's process group (SIGTERM, then SIGKILL
// after the grace period), the run is recorded `interrupted`, the sweep stops and culprit exits 128
// + signal (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP). A later `culprit run` resumes
// cleanly.

#include <string>

#include "culprit/errors.hpp"

namespace culprit::launch {

// Installs the SIGINT/SIGTERM/SIGHUP handlers for its lifetime and restores the previous ones
// after.
class InterruptScope {
 public:
  InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
  ~InterruptScope();

 private:
  bool installed_ = false;
};

// The signal received since the outermost InterruptScope began; 0 when none.
int interrupt_signal();

// Thrown once the interrupted run is recorded; main() exits with exit_code().
class Interrupted : public Error {
 public:
  Interrupted(int signal, const std::string& what) : Error(what, 128 + signal), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

// "SIGINT", "SIGTERM", "SIGHUP", else "signal N".
std::string signal_name(int signal);

}  // namespace culprit::launch
