#include "culprit/report/import_report.hpp"

#include <fmt/format.h>

#include "culprit/report/json_writer.hpp"
#include "culprit/report/terminal_text.hpp"

namespace culprit::report {
namespace {

std::string import_json(const ImportReport& r) {
  const importers::ImportSummary& s = r.summary;
  JsonWriter w;
  w.begin_object()
      .field("run_id", r.run_id)
      .field("format", s.format)
      .field("ranks", s.ranks)
      .field("steps", s.steps)
      .field("events", s.events)
      .field("warnings", s.warnings)
      .field("experiment", r.experiment)
      .field("label", r.label)
      .field("baseline", r.baseline)
      .field("repetition", r.repetition)
      .field("median_ms", r.median_ms)
      .field("world_size", s.world_size)
      .field("rank_rule", s.rank_rule)
      .field("partial", s.partial)
      .field("incomplete_collectives", s.incomplete_collectives)
      .field("events_read", s.events_read)
      .field("kernels", s.kernels);
  w.key("kernel_classes").begin_object();
  for (const auto& [kind, count] : s.kernel_classes) w.field(kind, count);
  w.end_object().field("collectives", s.collectives).field("files", s.files).end_object();
  return w.str();
}

std::string import_text(const ImportReport& r) {
  const importers::ImportSummary& s = r.summary;
  std::string out = fmt::format(
      "run {} imported: {} trace, {} rank(s){}, {} step(s), {} events stored ({} read), "
      "{} collective(s), {} kernel(s)\n"
      "experiment '{}', configuration '{}'{} repetition {}, median step {:.2f} ms\n",
      r.run_id, s.format, s.ranks,
      s.partial ? fmt::format(" of {} (partial)", s.world_size) : std::string(), s.steps, s.events,
      s.events_read, s.collectives, s.kernels, printable(r.experiment), printable(r.label),
      r.baseline ? " (baseline)" : "", r.repetition, r.median_ms);
  out += "ranks: " + printable(s.rank_rule) + "\n";
  if (!s.kernel_classes.empty()) {
    // Not only kernels: the copy and memset records of the trace are counted in their classes.
    out += "GPU work by class:";
    for (const auto& [kind, count] : s.kernel_classes) out += fmt::format(" {} {}", kind, count);
    out += "\n";
  }
  for (const std::string& x : s.warnings) out += "warning: " + printable(x) + "\n";
  return out;
}

}  // namespace

std::string import_document(const ImportReport& r, Format format) {
  return format == Format::kJson ? json_document(import_json(r)) : text_document(import_text(r));
}

}  // namespace culprit::report
