#include "culprit/report/validate_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "culprit/report/attribution_report.hpp"
#include "culprit/report/json_writer.hpp"
#include "culprit/report/terminal_text.hpp"

namespace culprit::report {
namespace {

std::string blamed_text(const analysis::RunCulprit& b) {
  if (!b.found) return "nobody";
  if (!b.is_code()) return fmt::format("environment (rank {} waited for a CPU)", b.rank);
  return fmt::format("rank {} {} {:.2f} ms", b.rank, describe_phase(b.phase, b.layer), b.excess_ms);
}

// The verdict of configuration `label` against the baseline, when the experiment was judged.
const stats::Comparison* verdict_of(const stats::Judgement* judged, const std::string& label) {
  if (!judged) return nullptr;
  for (const stats::StoredComparison& c : judged->comparisons.comparisons) {
    if (c.candidate_label == label) return &c.comparison;
  }
  return nullptr;
}

// A run of another version (or rank count, or model) without injection: not scored. Its
// configuration's verdict (the one judgement) says whether it regressed; the blame says where.
std::string uninjected_text(const analysis::RunCulprit& b, const stats::Comparison* verdict) {
  const std::string where =
      fmt::format("rank {} {} {:+.2f} ms", b.rank, describe_phase(b.phase, b.layer), b.excess_ms);
  if (verdict) {
    const std::string head =
        std::string(stats::verdict_name(verdict->verdict)) + " without injection";
    if (!b.found) return head + ": no rank diverges";
    return head + ": " + (b.is_code() ? where : blamed_text(b));
  }
  if (!b.found) return "no injection: no rank diverges";
  if (!b.is_code()) return "no injection: " + blamed_text(b);
  return "regressed without injection: " + where;
}

void write_judgement(JsonWriter& json, const stats::Judgement& judged) {
  const stats::JudgingSettings& s = judged.settings;
  json.key("judgement").begin_object().field("alpha", s.alpha).field("looks", s.looks);
  json.field("alpha_per_comparison", s.alpha_per_comparison).field("margin", s.margin);
  json.field("source", s.source).key("comparisons").begin_array();
  for (const stats::StoredComparison& sc : judged.comparisons.comparisons) {
    const stats::Comparison& c = sc.comparison;
    json.begin_object().field("baseline", sc.baseline_label).field("candidate", sc.candidate_label);
    json.field("verdict", stats::verdict_name(c.verdict)).field("relative", c.relative);
    json.key("relative_ci").interval_or_null(c.has_ci, c.relative_lo, c.relative_hi);
    json.field("alpha", c.alpha).field("margin", c.margin).end_object();
  }
  json.end_array().end_object();
}

// A case states the delay injected and the one blamed alike: rank, phase, layer, ms. The object
// stays open for the caller's further fields.
JsonWriter& begin_delay(JsonWriter& json, int rank, const std::string& phase, int layer,
                        double ms) {
  return json.begin_object()
      .field("rank", rank)
      .field("phase", phase)
      .field("layer", layer)
      .field("ms", ms);
}

}  // namespace

std::string validate_json(const analysis::Scorecard& card, const stats::Judgement* judged) {
  JsonWriter json;
  json.begin_object().field("experiment", card.experiment);
  json.key("cases").begin_array();
  for (const analysis::ValidationCase& c : card.cases) {
    json.begin_object().field("run", c.run_id).field("config", c.config);
    json.key("injected");
    begin_delay(json, c.injected.rank, c.injected.phase, c.injected.layer, c.injected.ms)
        .end_object();
    json.key("blamed");
    if (c.blamed.found) {
      begin_delay(json, c.blamed.rank, c.blamed.phase, c.blamed.layer, c.blamed.excess_ms)
          .field_or_null("environment", c.blamed.environment)
          .end_object();
    } else {
      json.null();
    }
    json.field("hit", c.hit).field("median_step_ms", c.median_step_ms).end_object();
  }
  json.end_array();
  json.field("hits", card.hits).field("accuracy", card.accuracy);
  json.field("large_cases", card.large_cases).field("large_hits", card.large_hits);
  json.field("controls", static_cast<int>(card.controls.size()))
      .field("false_positives", card.false_positives)
      .field("false_positive_rate", card.false_positive_rate)
      .field("environment_controls", card.environment_controls)
      .field("control_median_ms", card.control_median_ms)
      .field("unscored", card.unscored);
  // Each control with what it was blamed for (attribute's run culprit): a false positive names
  // its rank and phase.
  json.key("control_runs").begin_array();
  for (const analysis::ValidationControl& c : card.controls) {
    json.begin_object().field("run", c.run_id).field("config", c.config).key("blamed");
    write_run_culprit(json, c.blamed);
    json.field("false_positive", c.blamed.is_code())
        .field("median_step_ms", c.median_step_ms)
        .end_object();
  }
  json.end_array();
  // Uninjected changes (another version, rank count or model): their blame, not scored; regressed
  // by their configuration's verdict when judged (by the blame alone when not).
  json.key("uninjected_runs").begin_array();
  for (const analysis::ValidationControl& c : card.uninjected) {
    json.begin_object().field("run", c.run_id).field("config", c.config).key("blamed");
    write_run_culprit(json, c.blamed);
    const stats::Comparison* verdict = verdict_of(judged, c.config);
    json.field("regressed",
               verdict ? verdict->verdict == stats::Verdict::kRegressed : c.blamed.is_code());
    json.key("verdict");
    if (verdict) {
      json.value(stats::verdict_name(verdict->verdict));
    } else {
      json.null();
    }
    json.field("median_step_ms", c.median_step_ms).end_object();
  }
  json.end_array();
  if (judged) write_judgement(json, *judged);
  json.key("smallest_hit_ms");
  if (card.smallest_hit_ms) {
    json.value(*card.smallest_hit_ms);
  } else {
    json.null();
  }
  json.end_object();
  return json.str();
}

std::string validate_text(const analysis::Scorecard& card, const stats::Judgement* judged) {
  std::string out = fmt::format("experiment '{}': blind attribution against injected delays\n\n",
                                card.experiment);
  // Rows first, so that the columns are as wide as their longest cell (an MPI phase such as
  // "compute>MPI_Allreduce" is longer than a layer's).
  struct Row {
    std::int64_t run_id;
    std::string injected, blamed, outcome;
  };
  std::vector<Row> rows;
  for (const analysis::ValidationCase& c : card.cases) {
    rows.push_back({c.run_id,
                    fmt::format("rank {} {} {:.2f} ms", c.injected.rank,
                                describe_phase(c.injected.phase, c.injected.layer), c.injected.ms),
                    blamed_text(c.blamed), c.hit ? "hit" : "MISS"});
  }
  for (const analysis::ValidationControl& c : card.controls) {
    rows.push_back({c.run_id, "control (no injection)", blamed_text(c.blamed),
                    c.blamed.is_code() ? "FALSE POSITIVE"
                    : c.blamed.found   ? "environment"
                                       : "ok"});
  }
  for (const analysis::ValidationControl& c : card.uninjected) {
    rows.push_back({c.run_id, printable(c.config),
                    uninjected_text(c.blamed, verdict_of(judged, c.config)), ""});
  }
  const std::size_t injected_width =
      column_width(34, rows, [](const Row& r) { return r.injected; });
  const std::size_t blamed_width = column_width(  // an uninjected row's sentence is left out
      40, rows, [](const Row& r) { return r.outcome.empty() ? std::string() : r.blamed; });
  out += fmt::format("{:>5}  {:<{}} blamed\n", "run", "injected", injected_width);
  for (const Row& r : rows) {
    // An uninjected row's blame is a sentence with no outcome after it: not padded.
    out += r.outcome.empty()
               ? fmt::format("{:>5}  {:<{}} {}\n", r.run_id, r.injected, injected_width, r.blamed)
               : fmt::format("{:>5}  {:<{}} {:<{}} {}\n", r.run_id, r.injected, injected_width,
                             r.blamed, blamed_width, r.outcome);
  }
  if (judged && !card.uninjected.empty()) {
    const stats::JudgingSettings& s = judged->settings;
    out += fmt::format(
        "(verdicts at alpha {:.4g} per comparison over {} look(s), margin {:.4g} %: {})\n",
        s.alpha_per_comparison, s.looks, 100 * s.margin, s.source);
  }
  out += fmt::format("\naccuracy (rank and phase): {}/{} = {:.1f} %\n", card.hits,
                     card.cases.size(), card.cases.empty() ? 0.0 : 100 * card.accuracy);
  if (card.large_cases > 0) {
    out += fmt::format("  delays >= 2 % of the step time ({:.2f} ms): {}/{} = {:.1f} %\n",
                       0.02 * card.control_median_ms, card.large_hits, card.large_cases,
                       100.0 * card.large_hits / card.large_cases);
  }
  out += fmt::format("false positives on controls: {}/{} = {:.1f} %\n", card.false_positives,
                     card.controls.size(), 100 * card.false_positive_rate);
  if (card.environment_controls > 0) {
    out += fmt::format(
        "{} control(s) diverged because a rank waited for a CPU (another process on its core): "
        "not counted as false positives; measure on a quieter machine or bind the ranks away\n",
        card.environment_controls);
  }
  out += card.smallest_hit_ms
             ? fmt::format("smallest delay attributed correctly in every run: {:.2f} ms\n",
                           *card.smallest_hit_ms)
             : std::string("no delay level was attributed correctly in every run\n");
  if (card.unscored > 0)
    out += fmt::format("{} run(s) with slowdowns only were not scored\n", card.unscored);
  return out;
}

std::string validate_document(const analysis::Scorecard& card, const stats::Judgement* judged,
                              Format format) {
  return format == Format::kJson ? json_document(validate_json(card, judged))
                                 : text_document(validate_text(card, judged));
}

}  // namespace culprit::report
