#pragma once
// How a sweep reports progress without printing: the CLI implements ProgressSink (a live line
// on a terminal, log lines otherwise); the core library only calls it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "culprit/storage/records.hpp"

namespace culprit::launch {

struct RunProgress {
  int index = 0;  // 1-based among the runs this sweep executes
  int total = 0;  // runs this sweep executes (already-ok runs are not counted)
  std::int64_t run_id = 0;
  std::string config;  // configuration label
  int repetition = 0;
  int attempt = 1;
  double elapsed_s = 0;  // of this run so far
  double sweep_elapsed_s = 0;
  double eta_s = -1;  // remaining seconds of the sweep; -1 until a run has finished
};

// What became of one run.
struct RunReport {
  std::int64_t run_id = 0;
  std::string config;
  int repetition = 0;
  int position = 0;
  int attempt = 1;
  storage::RunStatus status = storage::RunStatus::kFailed;  // ok|failed|timeout|crashed|interrupted
  std::optional<double> median_ms;
  std::string error;  // empty when ok
  double wall_s = 0;
  std::string stderr_tail;
  // The failure lies in the environment (launcher missing, disk full, folder not writable),
  // not in the run: the sweep stops there and leaves the rest pending.
  bool environment_error = false;
  std::string warning;  // something the user should know about an ok run (e.g. its warm-up)
};

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  // Once, before the first run: how many runs are already done and how many will run.
  virtual void on_sweep_start(int already_ok, int to_run, int interrupted) {
    (void)already_ok, (void)to_run, (void)interrupted;
  }
  // Before the sweep: what each command resolved to (preflight.hpp), one line each.
  virtual void on_preflight(const std::vector<std::string>& lines) { (void)lines; }
  virtual void on_run_start(const RunProgress& run) { (void)run; }
  // About once a second while a run is in flight.
  virtual void on_run_tick(const RunProgress& run) { (void)run; }
  virtual void on_run_end(const RunProgress& run, const RunReport& report) {
    (void)run, (void)report;
  }
};

}  // namespace culprit::launch
