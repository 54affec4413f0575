#pragma once
// One run of culprit-step on this rank: clock sync, steps, clock sync, gather and run file.

#include <string>

#include "stepmodel/config.hpp"

namespace synthetic {

// Checks what this binary and this job can run; throws std::invalid_argument naming the key.
void check_runnable(const stepmodel::RunConfig& config, int mpi_ranks);

// Runs the workload; throws std::runtime_error on failure (the caller names the rank).
void run_workload(const stepmodel::RunConfig& config, const std::string& config_text,
                  const std::string& run_file, int rank, int ranks);

}  // namespace synthetic
