// The one list of trace formats (formats.hpp) and the reading of one file: its format as told,
// else recognised from its content.
#include "formats.hpp"

#include <array>
#include <fstream>

#include "culprit/errors.hpp"
#include "culprit/importers/input.hpp"
#include "culprit/importers/kineto.hpp"
#include "culprit/importers/nsys.hpp"

namespace culprit::importers {
namespace {

constexpr std::array<std::string_view, 2> kJsonNames = {".json", ".json.gz"};
constexpr std::array<std::string_view, 2> kSqliteNames = {".sqlite", ".sqlite3"};

const std::array<FormatReader, 3> kReaders = {{
    {Format::kKineto, "kineto", kJsonNames, false, '{', nullptr, parse_kineto, split_kineto_ranks},
    {Format::kLegacy, "legacy", kJsonNames, false, '[', nullptr, parse_legacy, nullptr},
    {Format::kNsys, "nsys", kSqliteNames, true, 0, parse_nsys, nullptr, split_nsys_ranks},
}};

bool is_sqlite_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[16] = {};
  in.read(magic, sizeof magic);
  return in.gcount() == 16 &&
         std::string_view(magic, 16) == std::string_view("SQLite format 3\0", 16);
}

RankTrace read_text(const FormatReader& reader, const std::string& bytes, const std::string& path) {
  if (bytes.find_first_not_of(" \t\r\n") == std::string::npos)
    throw UsageError(path + ": the file is empty");
  return reader.read_text(bytes, path);
}

}  // namespace

std::span<const FormatReader> format_readers() {
  return kReaders;
}

const FormatReader& reader_of(Format format) {
  for (const FormatReader& r : kReaders) {
    if (r.format == format) return r;
  }
  throw UsageError(std::string("no reader for --format ") + format_name(format));
}

Format parse_format(const std::string& text) {
  if (text == "auto") return Format::kAuto;
  for (const FormatReader& r : kReaders) {
    if (text == r.name) return r.format;
  }
  throw UsageError("unknown --format '" + text + "': use auto, kineto, legacy or nsys");
}

const char* format_name(Format format) {
  for (const FormatReader& r : kReaders) {
    if (r.format == format) return r.name;
  }
  return "auto";
}

RankBy parse_rank_by(const std::string& text) {
  if (text == "auto") return RankBy::kAuto;
  if (text == "process") return RankBy::kProcess;
  if (text == "device") return RankBy::kDevice;
  throw UsageError("unknown --rank-by '" + text + "': use process or device (default auto)");
}

RankTrace read_trace(const std::string& path, Format format) {
  if (format != Format::kAuto) {
    const FormatReader& reader = reader_of(format);
    return reader.database ? reader.read_database(path) : read_text(reader, read_input(path), path);
  }
  if (is_sqlite_file(path)) {
    for (const FormatReader& r : kReaders) {
      if (r.database) return r.read_database(path);
    }
  }
  const std::string bytes = read_input(path);
  const std::size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw UsageError(path + ": the file is empty");
  for (const FormatReader& r : kReaders) {
    if (!r.database && r.opens_with == bytes[first]) return r.read_text(bytes, path);
  }
  // Evidence about a run (counters, telemetry) is the likeliest other file: say how it goes in.
  throw UsageError(path + ": byte offset " + std::to_string(first) +
                   ": not a profiler trace (neither JSON nor an Nsight Systems SQLite export); "
                   "an Nsight Compute CSV or GPU telemetry is attached to a stored run instead: "
                   "--format ncu --attach RUN:RANK, or --format dcgm|nvidia-smi|nvml-csv "
                   "--attach RUN");
}

}  // namespace culprit::importers
