// The data document `culprit report` embeds in its page: the JSON of compare, explain and
// validate as those subcommands print it, plus the figures of the focus run.
#include <cmath>

#include "culprit/report/attribution_report.hpp"
#include "culprit/report/bisect_report.hpp"
#include "culprit/report/compare_report.hpp"
#include "culprit/report/explain_report.hpp"
#include "culprit/report/html_report.hpp"
#include "culprit/report/json_writer.hpp"
#include "culprit/report/telemetry_report.hpp"
#include "culprit/report/validate_report.hpp"
#include "culprit/stats/summary.hpp"

namespace culprit::report {
namespace {

void write_configurations(JsonWriter& json, const std::vector<stats::StoredConfiguration>& list) {
  json.key("configurations").begin_array();
  for (const stats::StoredConfiguration& c : list) {
    json.begin_object()
        .field("label", c.label)
        .field("factor", c.factor)
        .field("is_baseline", c.is_baseline)
        .field("n", static_cast<int>(c.medians_ms.size()));
    if (!c.medians_ms.empty()) {
      const stats::Summary s = stats::summarize(c.medians_ms);
      json.field("median_ms", s.median).field("has_ci", s.has_ci);
      json.key("ci_ms").begin_array().value(s.ci_lo).value(s.ci_hi).end_array();
      json.field("ci_level", s.ci_level);
    }
    json.field("samples_ms", c.medians_ms).end_object();
  }
  json.end_array();
}

void write_efficiency(JsonWriter& json, const std::string& config,
                      const analysis::RunAttribution& a) {
  json.begin_object().field("config", config).field("run", a.run_id).field("ranks", a.ranks);
  json.field("median_step_ms", a.median_step_ms);
  json.key("ratios").begin_array();
  const analysis::Efficiency& e = a.efficiency;
  for (const analysis::Ratio* r :
       {&e.mfu, &e.gemm_rate, &e.algbw, &e.busbw, &e.exposed_comm, &e.visual_overlap}) {
    json.begin_object().field("name", r->name).key("ratio");
    write_ratio(json, *r);
    json.end_object();
  }
  json.end_array();
  json.key("sampled_activity");
  write_sampled_activity(json, a.activity);
  json.end_object();
}

void write_heat_map(JsonWriter& json, const analysis::HeatMap& m) {
  json.begin_object()
      .field("quantity", m.quantity)
      .field("ranks", m.ranks)
      .field("ranks_per_bin", m.ranks_per_bin)
      .field("aggregation", m.aggregation)
      .field("min_ms", m.min_ms)
      .field("max_ms", m.max_ms);
  json.field("steps", m.steps);
  json.key("rows").begin_array();
  for (const analysis::HeatRow& row : m.rows) {
    json.begin_object()
        .field("first_rank", row.first_rank)
        .field("last_rank", row.last_rank)
        .field("kept", row.kept);
    json.key("ms").begin_array();
    // Stated to the microsecond: enough for a colour, and it keeps large maps small.
    for (double v : row.values_ms) json.value(std::isnan(v) ? v : std::round(v * 1e3) / 1e3);
    json.end_array().end_object();
  }
  json.end_array().end_object();
}

double micro(double ms) {
  return std::round(ms * 1e3) / 1e3;
}

void write_lanes(JsonWriter& json, const analysis::StepLanes& l) {
  json.begin_object()
      .field("found", l.found)
      .field("step", l.step)
      .field("time_ms", l.time_ms)
      .field("why", l.why)
      .field("ranks", l.ranks)
      .field("selection", l.selection)
      .field("decisive_collective", l.decisive_collective)
      .field("last_arriver", l.last_arriver);
  json.key("divergence");
  if (l.divergence.found) {
    write_culprit(json, l.divergence);
  } else {
    json.null();
  }
  json.field("divergence_begin_ms", l.divergence_begin_ms);
  json.key("lanes").begin_array();
  for (const analysis::Lane& lane : l.lanes) {
    json.begin_object().field("rank", lane.rank).field("why", lane.why);
    json.key("events").begin_array();
    for (const analysis::LaneEvent& e : lane.events) {
      json.begin_object()
          .field("name", e.name)
          .field("kind", e.kind)
          .field("begin_ms", micro(e.begin_ms))
          .field("end_ms", micro(e.end_ms))
          .field("wait_end_ms", micro(e.wait_end_ms))
          .field("layer", e.layer)
          .field("microbatch", e.microbatch)
          .field("seq", e.seq)
          .field("divergence", e.divergence)
          .end_object();
    }
    json.end_array().end_object();
  }
  json.end_array().end_object();
}

}  // namespace

std::string report_json(const findings::ReportData& data) {
  JsonWriter json;
  json.begin_object().field("experiment", data.experiment).field("generator", data.generator);
  json.key("settings")
      .begin_object()
      .field("alpha", data.settings.alpha)
      .field("looks", data.settings.looks)
      .field("looks_planned", data.settings.looks_planned)
      .field("alpha_per_comparison", data.settings.alpha_per_comparison)
      .field("margin", data.settings.margin)
      .field("source", data.settings.source)
      .end_object();
  write_configurations(json, data.configurations);
  json.key("compare").raw(compare_json(data.compare));
  json.key("explain").raw(explain_json(data.explain));
  json.key("scorecard");
  if (data.scorecard) {
    json.raw(validate_json(*data.scorecard));
  } else {
    json.null();
  }
  json.key("bisect");
  if (data.bisection) {
    BisectContext context;
    context.experiment = data.experiment;
    json.begin_object().key("result").raw(bisect_json(data.bisection->result, context));
    json.key("versions").begin_array();
    for (const bisect::StoredVersion& v : data.bisection->versions) {
      json.begin_object().field("name", v.name).field("detail", v.detail);
      json.field("n", static_cast<int>(v.medians_ms.size()));
      if (!v.medians_ms.empty()) {
        const stats::Summary s = stats::summarize(v.medians_ms);
        json.field("median_ms", s.median).field("has_ci", s.has_ci);
        json.key("ci_ms").begin_array().value(s.ci_lo).value(s.ci_hi).end_array();
      }
      json.field("samples_ms", v.medians_ms).end_object();
    }
    json.end_array().end_object();
  } else {
    json.null();
  }
  json.key("focus")
      .begin_object()
      .field("config", data.focus_config)
      .field("why", data.focus_why)
      .field("run", data.focus.run_id)
      .field("ranks", data.focus.ranks)
      .field("median_step_ms", data.focus.median_step_ms);
  json.key("culprit");
  write_run_culprit(json, data.focus.culprit);
  json.key("symptom")
      .begin_object()
      .field("waiting_ranks", data.focus.symptom.waiting_ranks)
      .field("median_wait_ms", data.focus.symptom.median_wait_ms)
      .field("total_wait_ms", data.focus.symptom.total_wait_ms)
      .end_object();
  json.end_object();
  json.key("efficiency").begin_array();
  if (data.baseline) write_efficiency(json, data.baseline_config, *data.baseline);
  write_efficiency(json, data.focus_config, data.focus);
  json.end_array();
  json.key("heatmaps").begin_object().key("lateness");
  write_heat_map(json, data.figures.lateness);
  json.key("excess");
  write_heat_map(json, data.figures.excess);
  json.end_object();
  json.key("telemetry_map");
  write_telemetry_map(json, data.telemetry);
  json.key("timeline");
  write_lanes(json, data.figures.lanes);
  json.field("notes", data.notes).end_object();
  return json.str();
}

}  // namespace culprit::report
