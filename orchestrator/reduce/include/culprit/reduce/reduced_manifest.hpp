#pragma once
// The reduced experiment as a typed manifest (docs/methodology.md, "Reduction"): the calibrated
// step as [baseline.model] schedule, each cause as a [versions.cause-N] that injects its delays,
// all causes together, a control, and [reduced_from] (the pair it reproduces). Planned directly
// by `culprit reduce` and written once by manifest::write_manifest with the layout's comments.

#include <cstdint>
#include <string>

#include "culprit/manifest/manifest.hpp"
#include "culprit/manifest/write.hpp"
#include "culprit/reduce/reduction.hpp"

namespace culprit::reduce {

struct ReducedManifestOptions {
  std::string name;       // experiment name
  std::string path;       // the manifest's file, for messages (settings.manifest_path)
  std::string source_db;  // where the pair came from (a comment and [reduced_from].db)
  std::string backend = "sim";
  int repetitions = 8;  // runs per configuration, and the cap: one look, the whole alpha to it
  std::uint64_t seed = 1;
  double margin = 0.02;  // stats.margin
  int level_draws = 0;   // simulated runs behind the model's level (for its comment)
  // The Hodges-Lehmann shift between the two runs' configurations, when both have several ok
  // runs: the change to reproduce, free of the pair's own run-to-run noise. 0 runs: unknown.
  double configuration_shift_ms = 0;
  int baseline_config_runs = 0;
  int candidate_config_runs = 0;
};

struct ReducedManifest {
  manifest::Manifest manifest;
  manifest::ManifestLayout layout;  // the comments that say where each figure came from
};

// Every number is kept at the digits the manifest is written with (6 decimals; the shift at
// 2), so what is planned here is what `culprit run` of the written file plans.
ReducedManifest reduced_manifest(const Reduction& reduction, const ReducedManifestOptions& options);

// "straggler: rank 63 gemm.bwd.wgrad layer 0", "typical shift: every rank's allreduce".
std::string cause_title(const Cause& cause);

}  // namespace culprit::reduce
