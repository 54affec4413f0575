#pragma once
// The job a configuration's runs repeat. A configuration's runs are repetitions of one job
// setup: runs of another rank count, communication backend or job size under one configuration
// would pool two jobs' step times as one sample. `culprit import` refuses such a run under a
// label (launch::store_imported_run), and `culprit merge` refuses to join such configurations of
// two stores (check_merge_inputs, merge_store).

#include <string>

#include "culprit/storage/records.hpp"

namespace culprit::storage {

struct JobSetup {
  int ranks = 1;        // the ranks its runs recorded (configurations.ranks)
  std::string backend;  // configurations.backend
  // The job's ranks: more than `ranks` for a partial import of a larger job (its configuration
  // echo's import.world_size); `ranks` for every other configuration.
  int world_size = 1;

  bool operator==(const JobSetup&) const = default;
};

// The setup of `config`. An echo that does not tell a larger job (no import section, one that
// does not parse, as some older stores keep, or an import.world_size not above the ranks) counts
// as a whole job of its ranks.
JobSetup job_setup(const ConfigurationRecord& config);

// "2 rank(s) over gloo", or "2 of 4 rank(s) over gloo" for a partial import.
std::string describe(const JobSetup& job);

}  // namespace culprit::storage
