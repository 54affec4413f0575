#pragma once
// GPU telemetry attached to runs, as explain shows it: the real dashboard figures (fleet and
// per-rank averages over the steady steps) beside the exact busy share, and why they do not
// locate the cause; as JSON, each run's averages and the report's rank x step map.
//   run telemetry: {run_id, sources, samples, steady_steps, fields: [{field, unit, samples,
//                   fleet_mean, ranks: [{rank, samples, mean}]}]}
//   map:           {field, unit, steps, ranks, values: [[per step]] (null: no sample)}

#include <optional>
#include <string>

#include "culprit/analysis/explain.hpp"
#include "culprit/analysis/telemetry_view.hpp"
#include "culprit/report/json_writer.hpp"

namespace culprit::report {

void write_run_telemetry(JsonWriter& w, const std::optional<analysis::RunTelemetry>& t);
// explain's "telemetry" field of one explanation: {baseline, candidate} or null.
void write_explanation_telemetry(JsonWriter& w, const analysis::Explanation& e);
void write_telemetry_map(JsonWriter& w, const std::optional<analysis::TelemetryMap>& m);

// The sampled-activity line from attached telemetry; "" when neither run has a utilisation
// field (GPU_UTIL, GR_ENGINE_ACTIVE, SM_ACTIVE).
std::string telemetry_activity_line(const analysis::Explanation& e);

}  // namespace culprit::report
