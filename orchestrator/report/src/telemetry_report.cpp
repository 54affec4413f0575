#include "culprit/report/telemetry_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace culprit::report {

void write_run_telemetry(JsonWriter& w, const std::optional<analysis::RunTelemetry>& t) {
  if (!t) {
    w.null();
    return;
  }
  w.begin_object().field("run_id", t->run_id).field("sources", t->sources);
  w.field("samples", t->samples).field("steady_steps", t->steady_steps);
  w.key("fields").begin_array();
  for (const analysis::FieldAverages& f : t->fields) {
    w.begin_object().field("field", f.field).field("unit", f.unit).field("samples", f.samples);
    w.field("fleet_mean", f.fleet_mean).key("ranks").begin_array();
    for (const analysis::RankAverage& r : f.ranks) {
      w.begin_object().field("rank", r.rank).field("samples", r.samples).field("mean", r.mean);
      w.end_object();
    }
    w.end_array().end_object();
  }
  w.end_array().end_object();
}

void write_explanation_telemetry(JsonWriter& w, const analysis::Explanation& e) {
  w.key("telemetry");
  if (!e.baseline_telemetry && !e.candidate_telemetry) {
    w.null();
    return;
  }
  w.begin_object().key("baseline");
  write_run_telemetry(w, e.baseline_telemetry);
  w.key("candidate");
  write_run_telemetry(w, e.candidate_telemetry);
  w.end_object();
}

void write_telemetry_map(JsonWriter& w, const std::optional<analysis::TelemetryMap>& m) {
  if (!m) {
    w.null();
    return;
  }
  w.begin_object().field("field", m->field).field("unit", m->unit);
  w.field("steps", m->steps).field("ranks", m->ranks).key("values").begin_array();
  for (const std::vector<double>& row : m->values) {
    w.begin_array();
    for (const double v : row) w.value(v);  // NaN is written as null
    w.end_array();
  }
  w.end_array().end_object();
}

namespace {

// "fleet 81.0 % (per rank 79.0-84.0 %, rank 3 83.0 %), exact busy share 62.3 %"
std::string side(const char* name, const std::optional<analysis::RunTelemetry>& t,
                 const analysis::SampledActivity& exact, int blamed) {
  const analysis::FieldAverages* f = t ? t->activity() : nullptr;
  if (!f) {
    return fmt::format("{} no utilisation telemetry (exact busy share {:.1f} %)", name,
                       100 * exact.busy_share);
  }
  const auto [lo, hi] =
      std::minmax_element(f->ranks.begin(), f->ranks.end(),
                          [](const auto& a, const auto& b) { return a.mean < b.mean; });
  std::string ranks = fmt::format("per rank {:.1f}-{:.1f} %", lo->mean, hi->mean);
  for (const analysis::RankAverage& r : f->ranks) {
    if (r.rank == blamed) ranks += fmt::format(", rank {} {:.1f} %", r.rank, r.mean);
  }
  return fmt::format("{} fleet {:.1f} % ({}), exact busy share {:.1f} %", name, f->fleet_mean,
                     ranks, 100 * exact.busy_share);
}

}  // namespace

std::string telemetry_activity_line(const analysis::Explanation& e) {
  const analysis::FieldAverages* b =
      e.baseline_telemetry ? e.baseline_telemetry->activity() : nullptr;
  const analysis::FieldAverages* c =
      e.candidate_telemetry ? e.candidate_telemetry->activity() : nullptr;
  if (!b && !c) return "";
  const int blamed = e.culprit.found ? e.culprit.rank : -1;
  return fmt::format(
      "sampled activity (GPU telemetry, {} over the steady steps): {}; {} - it does not locate "
      "the cause: a GPU waiting inside a collective kernel counts as active, so the ranks that "
      "wait read as busy as the one they wait for; the decomposition above does\n",
      (c ? c : b)->field, side("baseline", e.baseline_telemetry, e.baseline_activity, blamed),
      side("candidate", e.candidate_telemetry, e.candidate_activity, blamed));
}

}  // namespace culprit::report
