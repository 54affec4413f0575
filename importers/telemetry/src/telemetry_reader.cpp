#include <cctype>
#include <cstdlib>
#include <map>
#include <sstream>

#include "culprit/common/named_file.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/csv_lines.hpp"
#include "culprit/importers/telemetry.hpp"
#include "culprit/importers/units.hpp"
#include "telemetry_fields.hpp"

namespace culprit::importers::telemetry {

Format parse_format(const std::string& name) {
  if (name == "dcgm") return Format::kDcgm;
  if (name == "nvidia-smi") return Format::kNvidiaSmi;
  if (name == "nvml-csv") return Format::kNvmlCsv;
  throw UsageError("--format " + name + ": telemetry formats are dcgm, nvidia-smi, nvml-csv");
}

bool Series::timestamps() const {
  for (const Sample& s : samples) {
    if (!s.time_s) return false;
  }
  return !samples.empty();
}

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

[[noreturn]] void fail(const std::string& file, int line, const std::string& what) {
  throw UsageError(file + ":" + std::to_string(line) + ": " + what);
}

// A GPU index as written (a label, a dmon row, a CSV column): a whole number 0..65535, else
// refused naming the line (1.3e97 would not fit an int; found by fuzz_import_telemetry).
int gpu_index(std::optional<double> value, const std::string& file, int line) {
  if (!value) return 0;
  if (!(*value >= 0 && *value <= 65535) ||
      *value != static_cast<double>(static_cast<int>(*value))) {
    fail(file, line, "GPU index " + std::to_string(*value) + " is not a whole number 0..65535");
  }
  return static_cast<int>(*value);
}

// Days from 1970-01-01 of a civil date (Howard Hinnant's algorithm).
long days_from_civil(long y, long m, long d) {
  y -= m <= 2;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const long yoe = y - era * 400;
  const long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Per (gpu, field): the next sample number.
struct Counter {
  std::map<std::pair<int, std::string>, int> next;
  int take(int gpu, const std::string& field) { return next[{gpu, field}]++; }
};

void add(Series& s, Counter& n, int gpu, std::string host, std::optional<double> t,
         const std::string& field, double value, int line) {
  s.samples.push_back(Sample{gpu, std::move(host), t, n.take(gpu, field), field, value, line});
}

}  // namespace

std::optional<double> parse_time(const std::string& text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0;
  double sec = 0.0;
  char sep1 = 0, sep2 = 0, t = 0;
  std::istringstream in(trim(text));
  in >> y >> sep1 >> mo >> sep2 >> d;
  if (!in || sep1 != sep2 || (sep1 != '-' && sep1 != '/')) return std::nullopt;
  in.get(t);
  if (t != 'T' && t != ' ') return std::nullopt;
  char c1 = 0, c2 = 0;
  in >> h >> c1 >> mi >> c2 >> sec;
  if (!in || c1 != ':' || c2 != ':') return std::nullopt;
  const double day = static_cast<double>(days_from_civil(y, mo, d));
  return day * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
}

namespace {

// `name{labels} value [timestamp_ms]` lines; # comments skipped.
void read_prometheus(Series& s, std::string_view bytes) {
  TextLines lines(bytes);
  std::string_view raw;
  Counter n;
  while (lines.next(raw)) {
    const std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    const auto brace = line.find('{');
    const auto name_end = std::min(brace, line.find(' '));
    const std::string name = line.substr(0, name_end);
    std::map<std::string, std::string> labels;
    std::size_t at = std::min(name_end, line.size());  // a name alone: no value after it
    if (brace != std::string::npos && brace == name_end) {
      const auto close = line.find('}', brace);
      if (close == std::string::npos) fail(s.file, lines.line(), "a '{' of labels is not closed");
      std::istringstream ls(line.substr(brace + 1, close - brace - 1));
      std::string pair;
      while (std::getline(ls, pair, ',')) {
        const auto eq = pair.find('=');
        if (eq == std::string::npos) continue;
        std::string v = trim(pair.substr(eq + 1));
        if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
        labels[trim(pair.substr(0, eq))] = v;
      }
      at = close + 1;
    }
    std::istringstream rest(line.substr(at));
    std::string value_text, ts_text;
    rest >> value_text >> ts_text;
    const auto field = field_of(name);
    if (!field) continue;  // a field culprit does not keep
    const auto value = parse_number(value_text);
    if (!value) fail(s.file, lines.line(), "\"" + value_text + "\" is not a number");
    const auto gpu = parse_number(labels.count("gpu") ? labels["gpu"] : "0");
    const std::string host = labels.count("Hostname") ? labels["Hostname"] : labels["hostname"];
    std::optional<double> t;
    if (auto ms = parse_number(ts_text)) t = *ms / 1000.0;
    add(s, n, gpu_index(gpu, s.file, lines.line()), host, t, field->field, *value * field->factor,
        lines.line());
  }
}

std::vector<std::string> words(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// `dcgmi dmon`: "#Entity NAME..." (repeated), "ID UNIT...", "GPU n v..." rows.
void read_dmon(Series& s, std::string_view bytes) {
  TextLines lines(bytes);
  std::string_view raw;
  std::vector<std::string> columns;
  Counter n;
  while (lines.next(raw)) {
    const auto w = words(raw);
    if (w.empty() || w[0] == "ID") continue;
    if (w[0] == "#Entity") {
      columns.assign(w.begin() + 1, w.end());
      continue;
    }
    if (w[0] != "GPU") continue;  // dmon's own messages
    if (columns.empty()) fail(s.file, lines.line(), "a GPU row before the #Entity header");
    const auto gpu = w.size() > 1 ? parse_number(w[1]) : std::nullopt;
    if (!gpu) fail(s.file, lines.line(), "\"GPU\" without a GPU index");
    for (std::size_t i = 0; i < columns.size() && i + 2 < w.size(); ++i) {
      const auto field = field_of(columns[i]);
      const auto value = parse_number(w[i + 2]);
      if (!field || !value) continue;  // N/A, or a field culprit does not keep
      add(s, n, gpu_index(gpu, s.file, lines.line()), "", std::nullopt, field->field,
          *value * field->factor, lines.line());
    }
  }
}

}  // namespace

namespace {

struct Column {
  std::size_t at;
  FieldOf field;
  double factor;  // from the header's unit, else the table's
};

// A CSV with a header: nvidia-smi ("clocks.sm [MHz]", values "1410 MHz", "[N/A]") or NVML.
void read_csv(Series& s, std::string_view bytes) {
  TextLines lines(bytes);
  std::string_view raw;
  std::vector<std::string> row;
  std::vector<Column> columns;
  std::optional<std::size_t> time_at, gpu_at;
  Counter n;
  while (lines.next(raw)) {
    if (trim(raw).empty()) continue;
    if (!read_csv_record(lines, raw, row)) fail(s.file, lines.line(), "a quote is never closed");
    if (columns.empty() && !time_at) {
      for (std::size_t i = 0; i < row.size(); ++i) {
        std::string name = trim(row[i]), unit;
        if (const auto b = name.find(" ["); b != std::string::npos) {
          unit = name.substr(b + 2, name.find(']', b) - b - 2);
          name = name.substr(0, b);
        }
        if (name == "timestamp" || name == "time") time_at = i;
        if (name == "index" || name == "gpu") gpu_at = i;
        if (const auto f = field_of(name)) {
          const CanonicalUnit u = canonical_unit(unit);
          columns.push_back({i, *f, unit.empty() || !u.known ? f->factor : u.factor});
        }
      }
      if (columns.empty()) fail(s.file, lines.line(), "no telemetry column in the header");
      continue;
    }
    std::optional<double> t;
    if (time_at && *time_at >= row.size())
      fail(s.file, lines.line(), "a row without its timestamp");
    if (time_at) t = parse_time(row[*time_at]);
    if (time_at && !t) fail(s.file, lines.line(), "timestamp \"" + row[*time_at] + "\" unread");
    int gpu = 0;
    if (gpu_at && *gpu_at < row.size())
      gpu = gpu_index(parse_number(row[*gpu_at]), s.file, lines.line());
    for (const Column& c : columns) {
      if (c.at >= row.size()) continue;
      std::string text = trim(row[c.at]);
      text = text.substr(0, text.find(' '));  // "1410 MHz" -> "1410"
      auto value = parse_number(text);
      if (!value && text.rfind("0x", 0) == 0) value = std::strtoull(text.c_str(), nullptr, 16);
      if (!value) continue;  // [N/A]
      add(s, n, gpu, "", t, c.field.field, *value * c.factor, lines.line());
    }
  }
}

}  // namespace

Series parse_telemetry(const std::string& bytes, const std::string& file, Format format) {
  Series s;
  s.file = file;
  s.format = format;
  if (format == Format::kDcgm && bytes.find("#Entity") != std::string::npos) {
    s.format = Format::kDcgmDmon;
  }
  switch (s.format) {
    case Format::kDcgm:
      read_prometheus(s, bytes);
      break;
    case Format::kDcgmDmon:
      read_dmon(s, bytes);
      break;
    case Format::kNvidiaSmi:
    case Format::kNvmlCsv:
      read_csv(s, bytes);
      break;
  }
  if (s.samples.empty()) {
    throw UsageError(file +
                     ": no telemetry sample of a known field (SM clock, power, "
                     "utilisation, ...): is --format right?");
  }
  return s;
}

Series read_telemetry(const std::string& path, Format format) {
  return parse_telemetry(read_named_file(path, "a GPU telemetry file"), path, format);
}

}  // namespace culprit::importers::telemetry
