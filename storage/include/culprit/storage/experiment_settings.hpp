#pragma once
// An experiment's settings as it ran (table experiment_settings, docs/schema.md): written when
// it is registered (again on --force and on every resume), copied by merge, and read by every
// judge of it through experiment_settings() alone; no reader parses the stored manifest text.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "culprit/common/reduced_from.hpp"
#include "culprit/storage/db.hpp"

namespace culprit::storage {

// [reduced_from] of a reduced experiment (`culprit reduce`): the pair of runs it reproduces,
// stored as the manifest said it (common/reduced_from.hpp).
using ReducedFromRecord = culprit::ReducedFrom;

// The settings an experiment is judged by, and where it came from.
struct ExperimentSettingsRecord {
  double alpha = 0.05;       // overall two-sided level ([stats] alpha)
  double margin = 0.02;      // practical margin on the relative shift ([stats] margin)
  int repetitions = 5;       // [experiment] repetitions: runs per configuration at the first look
  int max_repetitions = 20;  // [stats] max_repetitions: the cap of adaptive sampling
  // [stats] sampling: "fixed" (run made `repetitions` runs) or "adaptive" (run added blocks up
  // to max_repetitions while inconclusive); "fixed" for experiments stored before schema 7.
  std::string sampling = "fixed";
  // Runs added per configuration at each further look, and the looks planned from repetitions to
  // the cap; 0 for an experiment registered before the store kept them (schema 7): read then as
  // the block culprit has always used, `repetitions`.
  int block = 0;
  int looks = 0;
  std::optional<ReducedFromRecord> reduced_from;
  // Registered before schema 7 from a manifest with [reduced_from]: the pair it reproduces was
  // not stored (migration 7 cannot read TOML); `culprit run` of the manifest again stores it.
  bool reduced_from_lost = false;

  bool operator==(const ExperimentSettingsRecord&) const = default;
};

// Writes (or replaces) experiment `experiment_id`'s settings.
void put_experiment_settings(Db& store, std::int64_t experiment_id,
                             const ExperimentSettingsRecord& settings);
// Experiment `experiment_id`'s settings in `schema` (an attached store's name, e.g. merge's
// "src"); nullopt for an experiment registered before the store kept them (schema 5) or made by
// `culprit import`.
std::optional<ExperimentSettingsRecord> experiment_settings(Db& store, std::int64_t experiment_id,
                                                            const std::string& schema = "main");

}  // namespace culprit::storage
