#include "culprit/storage/job_setup.hpp"

#include <algorithm>
#include <stdexcept>

#include "stepmodel/config.hpp"

namespace culprit::storage {

JobSetup job_setup(const ConfigurationRecord& config) {
  JobSetup job{config.ranks, config.backend, config.ranks};
  try {
    const stepmodel::RunConfig echo =
        stepmodel::parse_run_config(config.resolved_json, stepmodel::PhaseNames::kAny);
    if (echo.import) job.world_size = std::max(config.ranks, echo.import->world_size);
  } catch (const std::invalid_argument&) {
    // An older echo: nothing says the job was larger than its ranks.
  }
  return job;
}

std::string describe(const JobSetup& job) {
  const std::string of =
      job.world_size != job.ranks ? " of " + std::to_string(job.world_size) : std::string();
  return std::to_string(job.ranks) + of + " rank(s) over " + job.backend;
}

}  // namespace culprit::storage
