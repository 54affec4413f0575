#pragma once
// What the GPU telemetry attached to a run says over its steps: each field's fleet and per-rank
// averages over the steady-state steps (the dashboard's figures, shown beside the exact busy
// share), and per rank and step for the report. Samples are on the run's aligned clock
// (attach_telemetry placed them there); a sample belongs to the step whose window holds it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/analysis/why_telemetry.hpp"
#include "culprit/storage/evidence.hpp"
#include "culprit/storage/run_data.hpp"

namespace culprit::analysis {

// One step on the aligned clock: from the boundary ending the previous step to its own.
struct StepWindow {
  int step = 0;
  bool warmup = false;
  TimeWindow window;
};
std::vector<StepWindow> step_windows(const storage::RunData& run);

struct RankAverage {
  int rank = 0;
  int samples = 0;
  double mean = 0.0;
};

struct FieldAverages {
  std::string field;  // GPU_UTIL, SM_CLOCK, POWER, ... (docs/importers.md)
  std::string unit;   // %, hz, W, C, "" (a bitmask)
  int samples = 0;
  double fleet_mean = 0.0;  // over every rank's samples in the steady-state steps
  std::vector<RankAverage> ranks;
};

struct RunTelemetry {
  std::int64_t run_id = 0;
  std::vector<std::string> sources;  // the attached files
  int samples = 0;                   // attached samples, all fields, inside and outside the steps
  int steady_steps = 0;
  std::vector<FieldAverages> fields;  // over the steady-state steps; a field without samples there
                                      // is left out
  const FieldAverages* field(std::string_view name) const;
  // The dashboard's "GPU activity": GPU_UTIL, else GR_ENGINE_ACTIVE, else SM_ACTIVE.
  const FieldAverages* activity() const;
};

// nullopt when no telemetry is attached to the run.
std::optional<RunTelemetry> run_telemetry(const std::vector<storage::TelemetryRow>& rows,
                                          std::int64_t run_id,
                                          const std::vector<StepWindow>& steps);

// One field per rank and steady-state step (the report's map beside the heat maps): NaN where
// no sample fell in the step.
struct TelemetryMap {
  std::string field, unit;
  std::vector<int> steps;
  std::vector<int> ranks;
  std::vector<std::vector<double>> values;  // [rank row][step column]
};
// The first of SM_CLOCK, GPU_UTIL, SM_ACTIVE, POWER with a sample in a steady step; nullopt
// when none has.
std::optional<TelemetryMap> telemetry_map(const std::vector<storage::TelemetryRow>& rows,
                                          const std::vector<StepWindow>& steps);

// The map of the telemetry attached to stored run `run_id` (the report's focus run); nullopt
// when none is attached.
std::optional<TelemetryMap> stored_telemetry_map(storage::Db& store, std::int64_t run_id);

}  // namespace culprit::analysis
