#include "culprit/report/explain_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "culprit/report/attribution_report.hpp"
#include "culprit/report/json_writer.hpp"
#include "culprit/report/telemetry_report.hpp"
#include "culprit/report/why_report.hpp"

namespace culprit::report {
namespace {

std::string describe(const analysis::ExplainedComponent& c) {
  switch (c.category) {
    case analysis::Category::kTypical:
      return fmt::format("typical {}", c.phase);
    case analysis::Category::kStraggler:
      return fmt::format("rank {} {}{}", c.rank, describe_phase(c.phase, c.layer),
                         c.first_divergence ? " (first divergence)" : "");
    case analysis::Category::kExposedComm:
      return fmt::format("exposed {}", c.phase);
    case analysis::Category::kHostGap:
      return "host gaps";
  }
  return "?";
}

std::string signed_ms(double ms, bool leading) {
  if (leading) return fmt::format("{:+.2f} ms", ms);
  return fmt::format("{} {:.2f} ms", ms < 0 ? "-" : "+", std::abs(ms));
}

void write_runs(JsonWriter& json, const char* key, const std::vector<std::int64_t>& runs) {
  json.field(key, runs);
}

// The dashboard figure (share of busy samples) beside the exact busy share.
std::string dashboard_share(const analysis::SampledActivity& a) {
  if (a.samples == 0) return fmt::format("no sample (exact {:.1f} % busy)", 100 * a.busy_share);
  return fmt::format("{:.0f} % busy (exact {:.1f} %)", 100 * a.sampled_share, 100 * a.busy_share);
}

std::string activity_line(const analysis::Explanation& e) {
  return fmt::format(
      "sampled activity (a {:.0f} s dashboard): baseline {}, candidate {} - it does not locate "
      "the cause; the decomposition above does\n",
      e.candidate_activity.period_s, dashboard_share(e.baseline_activity),
      dashboard_share(e.candidate_activity));
}

// The judgement of the explanation's candidate (stats::judge_experiment), when one was made.
const stats::StoredComparison* judged_pair(const stats::Judgement* judged,
                                           const analysis::Explanation& e) {
  if (!judged) return nullptr;
  for (const stats::StoredComparison& c : judged->comparisons.comparisons) {
    if (c.candidate_label == e.candidate_label && c.baseline_label == e.baseline_label) return &c;
  }
  return nullptr;
}

void write_judgement(JsonWriter& json, const stats::StoredComparison* pair) {
  json.key("judgement");
  if (!pair) {
    json.null();
    return;
  }
  const stats::Comparison& c = pair->comparison;
  json.begin_object()
      .field("verdict", stats::verdict_name(c.verdict))
      .field("relative", c.relative)
      .key("relative_ci")
      .interval_or_null(c.has_ci, c.relative_lo, c.relative_hi)
      .field("alpha", c.alpha)
      .field("margin", c.margin)
      .end_object();
}

// "verdict: regressed, +9.24 % [+8.10, +10.31] at alpha 0.05 (as the experiment ran)"
std::string judgement_line(const stats::StoredComparison* pair, const stats::Judgement& judged) {
  if (!pair) return "";
  const stats::Comparison& c = pair->comparison;
  const std::string ci =
      c.has_ci ? fmt::format(" [{:+.2f}, {:+.2f}]", c.relative_lo * 100, c.relative_hi * 100)
               : std::string(" (too few runs for a CI)");
  return fmt::format("verdict: {}, {:+.2f} %{} at alpha {:.4g}, margin {:.4g} % ({})\n",
                     stats::verdict_name(c.verdict), c.relative * 100, ci, c.alpha, c.margin * 100,
                     judged.settings.source);
}

void write_explanation(JsonWriter& json, const std::string& experiment,
                       const analysis::Explanation& e, const stats::StoredComparison* pair) {
  json.begin_object()
      .field("experiment", experiment)
      .field("baseline", e.baseline_label)
      .field("candidate", e.candidate_label)
      .field("baseline_median_ms", e.baseline_median_ms)
      .field("candidate_median_ms", e.candidate_median_ms)
      .field("delta_ms", e.delta_ms);
  write_judgement(json, pair);
  json.key("components").begin_array();
  for (const analysis::ExplainedComponent& c : e.components) {
    begin_component(json, c.category, c.rank, c.phase, c.layer)
        .field("ms", c.ms)
        .field("first_divergence", c.first_divergence)
        .end_object();
  }
  json.end_array();
  json.field("unclassified_ms", e.unclassified_ms);
  json.key("culprit");
  write_run_culprit(json, e.culprit);
  json.key("symptom");
  write_symptom(json, e.symptom);
  write_runs(json, "baseline_runs", e.baseline_runs);
  write_runs(json, "candidate_runs", e.candidate_runs);
  json.key("sampled_activity").begin_object();
  json.key("baseline");
  write_sampled_activity(json, e.baseline_activity);
  json.key("candidate");
  write_sampled_activity(json, e.candidate_activity);
  json.end_object();
  if (e.useful_overlap_ms) {
    json.field("useful_overlap_ms", *e.useful_overlap_ms);
    json.key("visual_overlap");
    write_ratio(json, *e.visual_overlap);
  }
  write_explanation_telemetry(json, e);
  if (e.why) write_why_fields(json, *e.why);
  json.end_object();
}

}  // namespace

std::string explain_equation(const analysis::Explanation& e) {
  std::string out = fmt::format("{:+.2f} ms =", e.delta_ms);
  bool first = true;
  for (const analysis::ExplainedComponent& c : e.components) {
    out += fmt::format(" {} {}", signed_ms(c.ms, first), describe(c));
    first = false;
  }
  out += fmt::format(" {} unclassified", signed_ms(e.unclassified_ms, first));
  return out;
}

std::string explain_json(const analysis::StoredExplanations& result,
                         const stats::Judgement* judged) {
  // One shape whatever the number of candidates: a script reads explanations[0] for one pair
  // and loops for several, never tests which of two shapes it got.
  JsonWriter json;
  json.begin_object().field("experiment", result.experiment);
  json.key("explanations").begin_array();
  for (const analysis::Explanation& e : result.explanations)
    write_explanation(json, result.experiment, e, judged_pair(judged, e));
  json.end_array();
  json.key("skipped").begin_array();
  for (const auto& [label, why] : result.skipped)
    json.begin_object().field("label", label).field("reason", why).end_object();
  json.end_array().end_object();
  return json.str();
}

std::string explain_text(const analysis::StoredExplanations& result,
                         const stats::Judgement* judged) {
  std::string out;
  for (const analysis::Explanation& e : result.explanations) {
    out += fmt::format("experiment '{}': '{}' vs baseline '{}'\n", result.experiment,
                       e.candidate_label, e.baseline_label);
    out += fmt::format(
        "median step {:.2f} -> {:.2f} ms (representative runs: baseline {}, candidate {})\n",
        e.baseline_median_ms, e.candidate_median_ms, fmt::join(e.baseline_runs, "+"),
        fmt::join(e.candidate_runs, "+"));
    if (judged) out += judgement_line(judged_pair(judged, e), *judged);
    out += explain_equation(e) + "\n";
    if (e.culprit.found) {
      out += fmt::format(
          "cause: rank {} {}, {:+.2f} ms over the peer median "
          "(first unexplained divergence in {}/{} steps)\n",
          e.culprit.rank, describe_place(e.culprit.phase, e.culprit.layer, e.culprit.microbatch),
          e.culprit.excess_ms, e.culprit.steps_blamed, e.culprit.steady_steps);
      const int waiting = e.symptom.waiting_ranks;
      out += fmt::format("symptom: {}{}\n",
                         describe_waiters(waiting, e.symptom.median_wait_ms, e.culprit.collective),
                         waiting <= 0   ? ""
                         : waiting == 1 ? " - it is not the cause"
                                        : " - they are not the cause");
      if (!e.culprit.environment.empty()) out += "environment: " + e.culprit.environment + "\n";
      if (e.why) out += why_block_text(*e.why);
    } else {
      out += "cause: no rank diverges from its peers beyond noise in the candidate\n";
    }
    // Real samples when telemetry is attached; else the modelled dashboard, unless the runs are
    // shorter than one sampling period (no dashboard figure to contrast).
    const std::string measured = telemetry_activity_line(e);
    if (!measured.empty()) {
      out += measured;
    } else if (e.baseline_activity.samples > 0 || e.candidate_activity.samples > 0) {
      out += activity_line(e);
    }
    if (e.useful_overlap_ms) {
      out += fmt::format("useful overlap: {:.2f} ms of step time saved by overlapping; {}\n",
                         *e.useful_overlap_ms, describe_ratio(*e.visual_overlap));
    }
    out += "\n";
  }
  for (const auto& [label, why] : result.skipped)
    out += fmt::format("skipped '{}': {}\n", label, why);
  return out;
}

std::string explain_document(const analysis::StoredExplanations& result,
                             const stats::Judgement* judged, Format format) {
  return format == Format::kJson ? json_document(explain_json(result, judged))
                                 : text_document(explain_text(result, judged));
}

}  // namespace culprit::report
