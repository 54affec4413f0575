#include "culprit/report/why_report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace culprit::report {
namespace {

using analysis::WhyFigure;
using analysis::WhySide;

void write_maybe(JsonWriter& w, std::string_view key, const std::optional<double>& v) {
  w.field_or_null(key, v);
}

void write_side(JsonWriter& w, const WhySide& s) {
  w.begin_object();
  w.field("file", s.file).field("kernel", s.kernel);
  w.key("launch_ids").begin_array();
  for (const std::int64_t id : s.launch_ids) w.value(id);
  w.end_array();
  w.field("roof", s.roof);
  w.key("figures").begin_array();
  for (const WhyFigure& f : s.figures) {
    w.begin_object().field("metric", f.metric);
    write_maybe(w, "value", f.value);
    write_maybe(w, "numerator", f.numerator);
    write_maybe(w, "denominator", f.denominator);
    w.field("unit", f.unit).field("source", f.source).field_or_null("note", f.note);
    w.end_object();
  }
  w.end_array().end_object();
}

void write_reconciliation(JsonWriter& w, const analysis::WhyReconciliation& r) {
  w.key("reconciliation").begin_object();
  write_maybe(w, "baseline_ms", r.baseline_ms);
  write_maybe(w, "candidate_ms", r.candidate_ms);
  write_maybe(w, "change_ms", r.change_ms);
  w.field("launches_per_step", r.launches_per_step);
  write_maybe(w, "counters_ms", r.counters_ms);
  write_maybe(w, "blamed_excess_ms", r.blamed_excess_ms);
  write_maybe(w, "unclassified_ms", r.unclassified_ms);
  w.field("clocks", r.clocks).end_object();
}

}  // namespace

void write_why_explanation(JsonWriter& w, const analysis::WhyExplanation& e) {
  w.begin_object().field("name", e.name).field("status", analysis::why_status_name(e.status));
  w.field("reason", e.reason).key("evidence").begin_array();
  for (const analysis::WhyEvidence& x : e.evidence) {
    w.begin_object().field("metric", x.metric);
    write_maybe(w, "baseline", x.baseline);
    write_maybe(w, "candidate", x.candidate);
    w.field("numerator", x.numerator).field("denominator", x.denominator);
    w.field("unit", x.unit).end_object();
  }
  w.end_array().end_object();
}

void write_why(JsonWriter& w, const analysis::WhyVerdict& v) {
  w.begin_object().field("kernel", v.kernel);
  w.key("baseline");
  if (v.baseline) {
    write_side(w, *v.baseline);
  } else {
    w.null();
  }
  w.key("candidate");
  write_side(w, v.candidate);
  w.key("explanations").begin_array();
  for (const analysis::WhyExplanation& e : v.explanations) write_why_explanation(w, e);
  w.end_array();
  write_reconciliation(w, v.reconciliation);
  w.end_object();
}

std::string why_json(const analysis::WhyVerdict& v) {
  JsonWriter w;
  write_why(w, v);
  return w.str();
}

namespace {

// A figure in a unit people read: ms, GB, GB/s, TFLOP/s, MHz, %.
std::string shown(const std::optional<double>& v, const std::string& unit) {
  if (!v || std::isnan(*v)) return "n/a";
  const double x = *v;
  if (unit == "ns") return fmt::format("{:.3f} ms", x / 1e6);
  if (unit == "byte") return fmt::format("{:.2f} MB", x / 1e6);
  if (unit == "byte/s") return fmt::format("{:.2f} GB/s", x / 1e9);
  if (unit == "FLOP/s") return fmt::format("{:.3f} TFLOP/s", x / 1e12);
  if (unit == "hz") return fmt::format("{:.0f} MHz", x / 1e6);
  if (unit == "%") return fmt::format("{:.1f} %", x);
  if (unit == "x") return fmt::format("x{:.2f}", x);
  return fmt::format("{:.3g} {}", x, unit);
}

std::string figure_rows(const analysis::WhyVerdict& v) {
  std::string out = fmt::format("  {:<28} {:>16} {:>16}\n", "figure", "baseline", "candidate");
  for (std::size_t i = 0; i < v.candidate.figures.size(); ++i) {
    const WhyFigure& c = v.candidate.figures[i];
    const std::string b = v.baseline ? shown(v.baseline->figures.at(i).value, c.unit) : "-";
    out += fmt::format("  {:<28} {:>16} {:>16}   {}\n", c.metric, b, shown(c.value, c.unit),
                       c.note.empty() ? c.source : c.note);
  }
  return out;
}

std::string reconciliation_line(const analysis::WhyReconciliation& r) {
  if (!r.change_ms) return "  reconciliation: n/a (one export)\n";
  std::string out = fmt::format(
      "  reconciliation: ncu duration {:+.3f} ms per launch x {:g} launches per step = {:+.3f} ms",
      *r.change_ms, r.launches_per_step, *r.counters_ms);
  if (r.blamed_excess_ms) {
    out += fmt::format(" of the blamed {:+.2f} ms; {:+.2f} ms unclassified", *r.blamed_excess_ms,
                       *r.unclassified_ms);
  }
  return out + "\n  (" + r.clocks + ")\n";
}

}  // namespace

std::string why_explanation_line(const analysis::WhyExplanation& e) {
  return fmt::format("  {:<17} {:<10} {}\n", e.name, analysis::why_status_name(e.status), e.reason);
}

namespace {

std::string why_text(const analysis::WhyVerdict& v) {
  std::string out = "why: " + v.candidate.kernel + " (" + v.candidate.file + ")";
  if (v.baseline) out += "\n  against " + v.baseline->kernel + " (" + v.baseline->file + ")";
  out += "\n" + figure_rows(v);
  if (v.baseline) out += "  baseline: " + v.baseline->roof + "\n";
  out += "  candidate: " + v.candidate.roof + "\n";
  for (const analysis::WhyExplanation& e : v.explanations) out += why_explanation_line(e);
  return out + reconciliation_line(v.reconciliation);
}

}  // namespace

void write_why_fields(JsonWriter& w, const analysis::WhyBlock& b) {
  w.key("why");
  if (b.verdict) {
    write_why(w, *b.verdict);
  } else {
    w.null();
  }
  w.field_or_null("why_against", b.against);
  w.field_or_null("next_capture", b.next_capture);
  w.field_or_null("telemetry_capture", b.telemetry_capture);
  w.field_or_null("why_not_applicable", b.not_applicable);
  w.field("slow_steps", b.slow_steps);
  w.key("clock_throttling");
  if (b.clock_throttling) {
    write_why_explanation(w, *b.clock_throttling);
  } else {
    w.null();
  }
}

std::string why_block_text(const analysis::WhyBlock& b) {
  if (!b.not_applicable.empty()) return "why: " + b.not_applicable + "\n";
  std::string out;
  if (b.verdict) {
    out += why_text(*b.verdict);
    if (!b.against.empty()) out += "  (baseline side: " + b.against + ")\n";
  } else {
    out +=
        "why: no kernel counters attached to the blamed rank; capture them with the command "
        "below, then `culprit import FILE --format ncu --attach RUN:RANK`\n";
    if (b.clock_throttling) out += why_explanation_line(*b.clock_throttling);
  }
  if (!b.next_capture.empty()) out += "next capture: " + b.next_capture + "\n";
  if (!b.telemetry_capture.empty()) out += "telemetry: " + b.telemetry_capture + "\n";
  return out;
}

std::string why_document(const analysis::WhyVerdict& v, Format format) {
  return format == Format::kJson ? json_document(why_json(v)) : text_document(why_text(v));
}

}  // namespace culprit::report
