#pragma once
// The settings an experiment runs with, as the store keeps them (storage/experiment_settings.hpp):
// written when it is registered, so that every judge of it reads them there.

#include "culprit/manifest/plan.hpp"
#include "culprit/storage/experiment_settings.hpp"

namespace culprit::launch {

// alpha, margin, repetitions, the cap, the block of adaptive sampling (stats::block_size: no
// manifest key sets it, so it is `repetitions`), the planned looks (stats::planned_looks) and
// [reduced_from].
storage::ExperimentSettingsRecord settings_record(const manifest::Plan& plan);

}  // namespace culprit::launch
