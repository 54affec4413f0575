// The blamed phase's shape from the run's resolved configuration: FLOPs and ideal bytes of one
// instance, for the why block's FLOP/s when ncu counted no FLOPs.
#include <fmt/format.h>

#include <optional>

#include "culprit/analysis/stored_runs.hpp"
#include "stepmodel/config.hpp"
#include "stepmodel/schedule.hpp"
#include "why_stored_parts.hpp"

namespace culprit::analysis::why_detail {
namespace {

std::optional<PhaseShape> shape_of_run(storage::Db& store, std::int64_t run, const RunCulprit& c) {
  // Only the model section is read (the injection section is the truth explain never sees).
  const std::optional<stepmodel::RunConfig> config = stored_run_config(store, run);
  if (!config || config->import) return std::nullopt;  // an import has no model of its shapes
  const stepmodel::ModelConfig& m = config->model;
  if (!m.schedule.empty()) return std::nullopt;  // a measured schedule has durations, not shapes
  for (const stepmodel::Phase& p : stepmodel::step_schedule(m)) {
    if (p.name != c.phase || p.flops <= 0.0 || (c.layer >= 0 && p.layer != c.layer)) continue;
    const double t = m.tokens, h = static_cast<double>(m.hidden);
    const auto size = static_cast<double>(stepmodel::dtype_size(m));
    return PhaseShape{
        p.flops, (2.0 * t * h + h * h) * size,
        fmt::format("the configuration's shape: 2 x tokens {} x hidden {} x hidden (one {} per "
                    "launch)",
                    m.tokens, m.hidden, c.phase),
        fmt::format("the shape's ideal bytes: (2 x tokens x hidden + hidden^2) x {} byte ({})",
                    size, m.dtype)};
  }
  return std::nullopt;
}

}  // namespace

std::optional<PhaseShape> phase_shape(storage::Db& store, const Explanation& e) {
  if (e.candidate_runs.empty()) return std::nullopt;
  auto candidate = shape_of_run(store, e.candidate_runs.front(), e.culprit);
  if (!candidate || e.baseline_runs.empty()) return candidate;
  // One FLOP count serves both sides: only when the baseline's shape is the same.
  const auto baseline = shape_of_run(store, e.baseline_runs.front(), e.culprit);
  if (baseline &&
      (baseline->flops != candidate->flops || baseline->ideal_bytes != candidate->ideal_bytes)) {
    return std::nullopt;
  }
  return candidate;
}

}  // namespace culprit::analysis::why_detail
