#pragma once
// How busy the machine was around one run, kept in the run's provenance (rank -1 = the job as a
// whole): load averages, the job's CPU time against its wall time, involuntary context
// switches, and the share of the machine's CPU that other processes took (from /proc/stat).
// A noisy run can then be told apart from a slow version (docs/methodology.md, "Bisection").

#include <cstdint>

#include "culprit/launch/process.hpp"
#include "culprit/storage/db.hpp"

namespace culprit::launch::detail {

struct MachineSample {
  double load1 = -1;          // 1-minute load average (-1: unreadable)
  long long busy_ticks = -1;  // /proc/stat "cpu" busy jiffies (-1: unreadable)
  long long total_ticks = -1;
};
MachineSample sample_machine();

// Writes the contention.* keys of run `run_id` (replacing earlier ones).
void record_contention(storage::Db& store, std::int64_t run_id, const MachineSample& before,
                       const MachineSample& after, const ProcessResult& process);

}  // namespace culprit::launch::detail
