#pragma once
// The pieces of explain's why block that read the store beside the counters (why_stored.cpp):
// the blamed phase's shape from the run's configuration, and the telemetry attached to its runs.
#include <cstdint>
#include <optional>
#include <string>

#include "culprit/analysis/explain.hpp"
#include "culprit/analysis/telemetry_view.hpp"
#include "culprit/storage/db.hpp"

namespace culprit::analysis::why_detail {

// One instance of the blamed phase as the run's resolved configuration shapes it (the synthetic
// step's GEMMs): its FLOPs and its ideal DRAM bytes (each operand read once, the result written
// once). nullopt for a run without a resolved model (an import), a phase that is no GEMM, or
// runs whose shapes differ between baseline and candidate.
struct PhaseShape {
  double flops = 0.0;
  double ideal_bytes = 0.0;
  std::string flops_source, bytes_source;
};
std::optional<PhaseShape> phase_shape(storage::Db& store, const Explanation& e);

// The telemetry attached to the explanation's runs: summaries over the steady steps (the
// dashboard line), and clock_throttling from the blamed rank's samples inside its slow steps
// against its peers' in the same steps. `candidate` is the candidate's representative run's
// attribution (its steps say which ones are slow).
struct StoredTelemetry {
  std::optional<RunTelemetry> baseline, candidate;
  std::optional<ClockEvidence> clock;
  std::vector<int> slow_steps;
  std::string note;  // why there is no clock evidence although telemetry is attached
};
StoredTelemetry stored_telemetry(storage::Db& store, const Explanation& e,
                                 const RunAttribution* candidate);

}  // namespace culprit::analysis::why_detail
