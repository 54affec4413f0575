#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "culprit/common/named_file.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/csv_lines.hpp"
#include "culprit/importers/ncu.hpp"
#include "culprit/importers/units.hpp"

namespace culprit::importers::ncu {

const char* page_name(Page page) {
  return page == Page::kRaw ? "raw" : "details";
}

const Metric* Launch::find(const std::string& name) const {
  for (const Metric& m : metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string convert_command(const std::string& path) {
  return "ncu --import " + path + " --csv --page details > " + path + ".csv";
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The launch's own columns; every other column of the raw page is a metric.
bool identity_column(const std::string& name) {
  static const char* const kColumns[] = {"ID",
                                         "Process ID",
                                         "Process Name",
                                         "Host Name",
                                         "Kernel Name",
                                         "Kernel Time",
                                         "Context",
                                         "Stream",
                                         "Block Size",
                                         "Grid Size",
                                         "Device",
                                         "CC",
                                         "Section Name",
                                         "Metric Name",
                                         "Metric Unit",
                                         "Metric Value",
                                         "Rule Name",
                                         "Rule Type",
                                         "Rule Description",
                                         "Estimated Speedup Type",
                                         "Estimated Speedup"};
  for (const char* c : kColumns) {
    if (name == c) return true;
  }
  return false;
}

struct Header {
  std::map<std::string, std::size_t> at;
  int line = 0;
  // The row's field of column `name`, empty when the column is absent or the row is short.
  std::string get(const std::vector<std::string>& row, const std::string& name) const {
    const auto it = at.find(name);
    return it == at.end() || it->second >= row.size() ? std::string() : row[it->second];
  }
  bool has(const std::string& name) const { return at.count(name) != 0; }
};

struct Reader {
  const std::string& file;
  Report report;
  Header header;
  std::vector<std::string> units;  // raw page: the units row, by column
  std::map<std::pair<std::int64_t, std::string>, std::size_t> by_key;

  [[noreturn]] void fail(int line, const std::string& what) const {
    throw UsageError(file + ":" + std::to_string(line) + ": " + what);
  }
};

bool is_message(std::string_view line) {
  return line.substr(0, 2) == "==";
}

void note_message(Reader& r, std::string_view line, int number) {
  if (line.substr(0, 11) == "==WARNING==" || line.substr(0, 9) == "==ERROR==") {
    r.report.warnings.push_back(r.file + ":" + std::to_string(number) + ": ncu said " +
                                std::string(line));
  }
  ++r.report.skipped_lines;
}

bool is_header(std::string_view line) {
  return line.substr(0, 5) == "\"ID\"," || line.substr(0, 3) == "ID,";
}

void read_header(Reader& r, const std::vector<std::string>& fields, int line) {
  r.header.line = line;
  for (std::size_t i = 0; i < fields.size(); ++i) r.header.at.emplace(fields[i], i);
  r.report.columns = static_cast<int>(fields.size());
  r.report.page = r.header.has("Metric Name") ? Page::kDetails : Page::kRaw;
  if (!r.header.has("Kernel Name")) {
    r.fail(line,
           "the CSV header has no \"Kernel Name\" column: export with `ncu --csv` "
           "(details or raw page)");
  }
  if (r.report.page == Page::kDetails && !r.header.has("Metric Value")) {
    r.fail(line, "the CSV header has \"Metric Name\" but no \"Metric Value\" column");
  }
}

Launch& launch_for(Reader& r, const std::vector<std::string>& row, int line) {
  const std::string id_text = r.header.get(row, "ID");
  const auto id = parse_number(id_text);
  // Beyond 2^53 a double holds no exact whole number, and past int64 the conversion below is
  // undefined (found by fuzz_import_ncu: an ID of 52 digits).
  constexpr double kLargestId = 9007199254740992.0;
  if (!id || *id < 0 || *id != std::floor(*id) || *id > kLargestId) {
    r.fail(line, "launch ID \"" + id_text +
                     "\" is not a whole number from 0 to 2^53: is this an ncu CSV?");
  }
  const std::string kernel = r.header.get(row, "Kernel Name");
  const auto key = std::make_pair(static_cast<std::int64_t>(*id), kernel);
  const auto [it, fresh] = r.by_key.emplace(key, r.report.launches.size());
  if (!fresh) return r.report.launches[it->second];
  Launch& l = r.report.launches.emplace_back();
  l.id = key.first;
  l.kernel = kernel;
  l.line = line;
  const Header& h = r.header;
  l.process_id = h.get(row, "Process ID");
  l.process_name = h.get(row, "Process Name");
  l.host = h.get(row, "Host Name");
  l.context = h.get(row, "Context");
  l.stream = h.get(row, "Stream");
  l.block_size = h.get(row, "Block Size");
  l.grid_size = h.get(row, "Grid Size");
  l.device = h.get(row, "Device");
  l.cc = h.get(row, "CC");
  l.kernel_time = h.get(row, "Kernel Time");
  return l;
}

Metric make_metric(std::string section, std::string name, const std::string& unit,
                   const std::string& text, int line) {
  Metric m;
  m.section = std::move(section);
  m.name = std::move(name);
  m.unit_read = unit;
  m.text = text;
  m.line = line;
  const CanonicalUnit u = canonical_unit(unit);
  m.unit = u.unit;
  const auto v = parse_number(text);
  m.value = v ? *v * u.factor : kNaN;
  return m;
}

void read_details_row(Reader& r, const std::vector<std::string>& row, int line) {
  Launch& l = launch_for(r, row, line);
  const Header& h = r.header;
  const std::string name = h.get(row, "Metric Name");
  if (name.empty()) {
    const std::string rule = h.get(row, "Rule Name");
    if (rule.empty()) return;  // neither a metric nor a rule: nothing to keep
    Rule& k = l.rules.emplace_back();
    k.section = h.get(row, "Section Name");
    k.name = rule;
    k.type = h.get(row, "Rule Type");
    k.description = h.get(row, "Rule Description");
    k.speedup_type = h.get(row, "Estimated Speedup Type");
    k.speedup = parse_number(h.get(row, "Estimated Speedup")).value_or(kNaN);
    k.line = line;
    return;
  }
  l.metrics.push_back(make_metric(h.get(row, "Section Name"), name, h.get(row, "Metric Unit"),
                                  h.get(row, "Metric Value"), line));
}

void read_raw_row(Reader& r, const std::vector<std::string>& row, int line) {
  if (r.header.get(row, "ID").empty() && r.units.empty() && r.report.launches.empty()) {
    r.units = row;  // the units row under the raw page's header
    return;
  }
  Launch& l = launch_for(r, row, line);
  for (const auto& [name, at] : r.header.at) {
    if (identity_column(name) || at >= row.size()) continue;
    const std::string unit = at < r.units.size() ? r.units[at] : std::string();
    l.metrics.push_back(make_metric("", name, unit, row[at], line));
  }
}

void read_row(Reader& r, const std::vector<std::string>& row, int line) {
  ++r.report.rows;
  if (row.size() > r.header.at.size() + 1) {
    r.report.warnings.push_back(r.file + ":" + std::to_string(line) + ": " +
                                std::to_string(row.size()) + " fields under a header of " +
                                std::to_string(r.header.at.size()) + "; the extra ones ignored");
  }
  if (r.report.page == Page::kDetails) {
    read_details_row(r, row, line);
  } else {
    read_raw_row(r, row, line);
  }
}

}  // namespace

Report parse_ncu_csv(const std::string& bytes, const std::string& file) {
  if (bytes.find('\0') != std::string::npos) {
    throw UsageError(file +
                     ": binary data, not an ncu CSV export; if it is an Nsight Compute "
                     "report, convert it: " +
                     convert_command(file));
  }
  Reader r{file, {}, {}, {}, {}};
  r.report.file = file;
  TextLines lines(bytes);
  std::string_view line;
  std::vector<std::string> fields;
  while (lines.next(line)) {
    const int number = lines.line();
    const bool csv = r.header.line == 0 ? is_header(line) : line.substr(0, 1) == "\"";
    if (!csv) {
      if (is_message(line)) {
        note_message(r, line, number);
      } else if (!line.empty()) {
        ++r.report.skipped_lines;  // the profiled program's own output
      }
      continue;
    }
    if (!read_csv_record(lines, line, fields)) r.fail(number, "a quoted field is never closed");
    if (r.header.line == 0) {
      read_header(r, fields, number);
    } else {
      read_row(r, fields, number);
    }
  }
  if (r.header.line == 0) {
    r.fail(lines.line(), "no ncu CSV header (a line starting \"ID\",\"Process ID\",...) in " +
                             std::to_string(lines.line()) +
                             " lines: export with `ncu --csv` or `ncu --import F --csv`");
  }
  if (r.report.launches.empty()) {
    r.fail(lines.line(), "no kernel row after the header at line " + std::to_string(r.header.line) +
                             ": did ncu profile any kernel (see its ==WARNING== lines)?");
  }
  return std::move(r.report);
}

Report read_ncu(const std::string& path) {
  const std::string suffix = ".ncu-rep";
  if (path.size() >= suffix.size() &&
      path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
    throw UsageError(path +
                     ": an Nsight Compute report (.ncu-rep) is binary; convert it to CSV "
                     "first: " +
                     convert_command(path));
  }
  return parse_ncu_csv(read_named_file(path, "an ncu CSV export"), path);
}

}  // namespace culprit::importers::ncu
