#pragma once
// Executes one planned run end to end: run folder, resolved configuration, launcher, failure
// classification, ingest. Internal to the launch library.

#include <functional>
#include <string>

#include "culprit/launch/execute.hpp"
#include "culprit/storage/records.hpp"

namespace culprit::launch::detail {

struct RunTarget {
  const manifest::Plan* plan = nullptr;
  const manifest::PlannedRun* planned = nullptr;
  storage::RunState state;  // as stored before this attempt
};

RunReport run_one(storage::Db& store, const RunTarget& target, const ExecuteOptions& options,
                  const std::string& work_dir, const std::function<void(double)>& tick);

// True for SQLite's and the OS's words for a store or folder that cannot be written (full disk,
// I/O error, read-only file).
bool is_environment_failure(const std::string& error);

}  // namespace culprit::launch::detail
