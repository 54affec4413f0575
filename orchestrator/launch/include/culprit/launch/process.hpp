#pragma once
// Runs one child process from an argv array (never a shell) in its own process group, with a
// wall-clock limit that takes down the whole group, and keeps the tail of its stdout/stderr.

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace culprit::launch {

struct ProcessSpec {
  std::vector<std::string> argv;           // argv[0] without '/' is looked up in PATH
  std::map<std::string, std::string> env;  // set on top of the inherited environment
  double timeout_s = 0;                    // 0: no limit
  double grace_s = 5;                      // SIGTERM to the group, then SIGKILL after this
  std::size_t tail_bytes = 4096;           // kept from the end of stdout and of stderr
};

struct ProcessResult {
  bool started = false;
  std::string launch_error;      // why it did not start (fork/exec failure)
  std::optional<int> exit_code;  // set when it exited
  std::optional<int> signal;     // set when a signal ended it
  bool timed_out = false;        // the limit was reached and the group was killed
  int interrupted_by = 0;        // SIGINT/SIGTERM reached culprit (InterruptScope); group killed
  double wall_s = 0;
  double cpu_s = -1;               // user + system CPU of the child and its reaped children
  long involuntary_switches = -1;  // their involuntary context switches (-1: unknown)
  std::string stdout_tail;
  std::string stderr_tail;
};

// Called about once a second while the child runs, with the seconds elapsed.
using TickCallback = std::function<void(double elapsed_s)>;

// Starts argv, waits for it, and returns how it ended. A SIGINT/SIGTERM received under an
// InterruptScope (interrupt.hpp) is forwarded to the child's group: SIGTERM, SIGKILL after
// grace_s. Never throws for a child's failure; the
// result says what happened. The child dies with the calling thread (PR_SET_PDEATHSIG), so an
// orchestrator killed with SIGKILL does not leave its launcher running.
ProcessResult run_process(const ProcessSpec& spec, const TickCallback& tick = {});

// The executable `name` would run as: `name` itself when it contains '/', else the first
// executable match in PATH; nullopt when none.
std::optional<std::string> find_in_path(const std::string& name);

}  // namespace culprit::launch
