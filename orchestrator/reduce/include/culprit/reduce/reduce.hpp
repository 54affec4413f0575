#pragma once
// `culprit reduce` (docs/methodology.md, "Reduction"): a stored run pair -> the reduction (a step
// model calibrated on the baseline run, the candidate's causes as delays) -> its level measured
// by simulating it -> hiccup delays fitted -> repetitions chosen -> the reduced experiment as a
// typed manifest, planned directly. The caller writes it (manifest::write_manifest).

#include <cstdint>
#include <string>

#include "culprit/reduce/reduced_manifest.hpp"
#include "culprit/reduce/reduction.hpp"
#include "culprit/storage/db.hpp"

namespace culprit::reduce {

// The policy of a reduction, with its defaults.
struct ReduceOptions {
  ReductionOptions reduction;  // ranks (0: the runs' own), backend, what counts as a cause
  std::string name;            // the experiment's name; "": reduce-BASELINE-CANDIDATE
  std::string path;            // the manifest file to be written, for messages
  std::string source_db;       // the store as given (a comment and [reduced_from].db)
  int repetitions = 0;         // 0: enough for the control to decide against the model's noise
  int level_draws = 15;        // simulated runs behind the model's level
  int fit_draws = 100;         // simulated runs behind a fitted hiccup delay
  double margin = 0.02;        // the reduced manifest's stats.margin
};

struct ReducedExperiment {
  Reduction reduction;
  ReducedManifest reduced;  // manifest::make_plan accepts reduced.manifest
};

// Throws culprit::UsageError when the pair cannot be reduced (check_reducible_pair, reduce_runs).
ReducedExperiment reduce_pair(storage::Db& store, std::int64_t baseline_run,
                              std::int64_t candidate_run, const ReduceOptions& options);

}  // namespace culprit::reduce
