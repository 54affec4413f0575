#include "culprit/report/attach_report.hpp"

#include <fmt/format.h>

#include "culprit/report/json_writer.hpp"

namespace culprit::report {

namespace {

std::string attach_json(const analysis::AttachSummary& s) {
  JsonWriter w;
  if (s.telemetry) {
    w.begin_object().field("run_id", s.run_id).key("rank");
    if (s.rank >= 0) {
      w.value(s.rank);
    } else {
      w.null();
    }
    w.field("samples", s.launches).field("outside", s.outside).field("unmapped", s.unmapped);
    w.field("gpu_rule", s.gpu_rule).field("gpu_ranks", s.gpu_ranks);
    return w.field("warnings", s.warnings).end_object().str();
  }
  w.begin_object().field("run_id", s.run_id).field("rank", s.rank);
  w.field_or_null("phase", s.phase);
  w.key("kernels").begin_array();
  for (const auto& [kernel, phase] : s.kernel_phases) {
    w.begin_object().field("kernel", kernel).field_or_null("phase", phase).end_object();
  }
  w.end_array();
  w.field("launches", s.launches).field("metrics", s.metrics).field("warnings", s.warnings);
  return w.end_object().str();
}

std::string attach_text(const analysis::AttachSummary& s) {
  if (s.telemetry) {
    std::string out = fmt::format(
        "attached to run {}: {} telemetry sample(s) on the run's clock; step times and "
        "attribution unchanged\n",
        s.run_id, s.launches);
    for (const std::string& r : s.gpu_ranks) out += "  " + r + "\n";
    for (const std::string& w : s.warnings) out += "warning: " + w + "\n";
    return out;
  }
  std::string out = fmt::format(
      "attached to run {} rank {}: {} kernel(s), {} launch(es), {} metric value(s); step times "
      "and attribution unchanged\n",
      s.run_id, s.rank, s.kernels, s.launches, s.metrics);
  for (const auto& [kernel, phase] : s.kernel_phases) {
    out +=
        "  " + kernel +
        (phase.empty() ? "  (no phase of the run matches: kept by name)" : "  -> phase " + phase) +
        "\n";
  }
  for (const std::string& w : s.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace

std::string attach_document(const analysis::AttachSummary& s, Format format) {
  return format == Format::kJson ? json_document(attach_json(s)) : text_document(attach_text(s));
}

}  // namespace culprit::report
