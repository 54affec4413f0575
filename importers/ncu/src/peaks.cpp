#include "culprit/importers/peaks.hpp"

#include <filesystem>
#include <optional>
#include <vector>

#include "culprit/common/named_file.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/csv_lines.hpp"
#include "culprit/importers/units.hpp"

namespace culprit::importers {
namespace {

std::optional<std::size_t> column(const std::vector<std::string>& header,
                                  std::initializer_list<const char*> names) {
  for (const char* name : names) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
  }
  return std::nullopt;
}

struct PeakRow {
  std::string label;
  double flops = 0.0, bytes = 0.0;
};

}  // namespace

Peaks parse_peaks(const std::string& bytes, const std::string& file) {
  TextLines lines(bytes);
  std::string_view line;
  std::vector<std::string> header, row;
  std::optional<std::size_t> label, flops, bw;
  std::vector<PeakRow> rows;
  while (lines.next(line)) {
    if (line.empty()) continue;
    if (!read_csv_record(lines, line, row)) {
      throw UsageError(file + ":" + std::to_string(lines.line()) + ": unclosed quote");
    }
    if (header.empty()) {
      header = row;
      label = column(header, {"label", "name"});
      // Rates only: a bare "flops" column is a count (timing.csv's, a kernel's FLOPs), and a
      // count read as a peak placed every kernel on a roof it never had.
      flops = column(header, {"peak_flops", "flops_per_s"});
      bw = column(header, {"peak_bandwidth", "bytes_per_s"});
      if (!flops && !bw) {
        throw UsageError(file + ":" + std::to_string(lines.line()) +
                         ": a peaks file needs a peak_flops or peak_bandwidth column "
                         "(label,peak_flops,peak_bandwidth)");
      }
      continue;
    }
    auto get = [&](std::optional<std::size_t> at) {
      return at && *at < row.size() ? parse_number(row[*at]).value_or(0.0) : 0.0;
    };
    rows.push_back({label && *label < row.size() ? row[*label] : "", get(flops), get(bw)});
  }
  if (rows.empty()) throw UsageError(file + ": no peak row under the header");
  const PeakRow* chosen = &rows.front();
  for (const PeakRow& r : rows) {
    if (r.label == "measured") chosen = &r;
  }
  const std::string name = std::filesystem::path(file).filename().string();
  return Peaks{chosen->flops, chosen->bytes,
               name + (chosen->label.empty() ? "" : " (" + chosen->label + ")")};
}

Peaks read_peaks(const std::string& path) {
  return parse_peaks(read_named_file(path, "a peaks file"), path);
}

}  // namespace culprit::importers
