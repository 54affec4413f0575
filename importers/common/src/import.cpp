// Reading the inputs: folders expanded, formats recognised (or as told), one RankTrace per file.
#include "culprit/importers/import.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include "culprit/errors.hpp"
#include "culprit/importers/input.hpp"
#include "culprit/importers/kineto.hpp"
#include "culprit/importers/nsys.hpp"

namespace culprit::importers {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_trace_name(const std::string& name, Format f) {
  const bool json = ends_with(name, ".json") || ends_with(name, ".json.gz");
  const bool sqlite = ends_with(name, ".sqlite") || ends_with(name, ".sqlite3");
  if (f == Format::kNsys) return sqlite;
  if (f == Format::kKineto || f == Format::kLegacy) return json;
  return json || sqlite;
}

// The file names a folder is searched for, as the messages say them.
std::string trace_names(Format f) {
  if (f == Format::kNsys) return ".sqlite or .sqlite3 files, as --format nsys reads";
  if (f == Format::kKineto || f == Format::kLegacy) return ".json or .json.gz files";
  return "trace file (.json, .json.gz, .sqlite or .sqlite3)";
}

bool is_sqlite_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[16] = {};
  in.read(magic, sizeof magic);
  return in.gcount() == 16 &&
         std::string_view(magic, 16) == std::string_view("SQLite format 3\0", 16);
}

// A folder may hold other JSON beside its traces (a config.json): a plain .json file small
// enough to be no trace of a step, holding no "traceEvents", is not one of the folder's traces.
// A gzip file or a larger one is read as a trace (and refused there if it is none).
bool is_small_json_without_events(const std::string& path) {
  constexpr std::uintmax_t kSmall = 1 << 20;
  std::error_code ec;
  if (!ends_with(path, ".json") || std::filesystem::file_size(path, ec) > kSmall || ec) {
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t first = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
  return first != std::string::npos && text[first] == '{' &&
         text.find("\"traceEvents\"") == std::string::npos;
}

// Why a folder holds no trace, when it can tell: trace files in another letter case, or traces
// one level down.
std::string folder_hint(const std::string& folder, Format format) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string cased, below;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    std::string name = entry.path().filename().string();
    if (entry.is_directory()) {
      for (const auto& inner : fs::directory_iterator(entry.path(), ec)) {
        if (inner.is_regular_file() && is_trace_name(inner.path().filename().string(), format)) {
          below = entry.path().string();
          break;
        }
      }
      continue;
    }
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (cased.empty() && entry.is_regular_file() && is_trace_name(name, format))
      cased = entry.path().filename().string();
  }
  std::string hint;
  if (!cased.empty()) {
    hint += " (" + cased +
            " has an upper-case extension: rename it in lower case, or give the "
            "file itself)";
  }
  if (!below.empty()) {
    hint += " (" + below + " holds trace files: give that folder, one folder per job)";
  }
  return hint;
}

// Each --format and its name, the one list parse_format and format_name read.
constexpr std::array<std::pair<Format, const char*>, 4> kFormatNames = {
    {{Format::kAuto, "auto"},
     {Format::kKineto, "kineto"},
     {Format::kLegacy, "legacy"},
     {Format::kNsys, "nsys"}}};

}  // namespace

Format parse_format(const std::string& text) {
  for (const auto& [format, name] : kFormatNames) {
    if (text == name) return format;
  }
  throw UsageError("unknown --format '" + text + "': use auto, kineto, legacy or nsys");
}

RankBy parse_rank_by(const std::string& text) {
  if (text == "auto") return RankBy::kAuto;
  if (text == "process") return RankBy::kProcess;
  if (text == "device") return RankBy::kDevice;
  throw UsageError("unknown --rank-by '" + text + "': use process or device (default auto)");
}

const char* format_name(Format format) {
  for (const auto& [known, name] : kFormatNames) {
    if (known == format) return name;
  }
  return "auto";
}

std::vector<std::string> expand_inputs(const std::vector<std::string>& paths, Format format,
                                       std::vector<std::string>* notes) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::directory_iterator(p, ec)) {
        if (!entry.is_regular_file() || !is_trace_name(entry.path().filename().string(), format))
          continue;
        if (is_small_json_without_events(entry.path().string())) {
          if (notes)
            notes->push_back(entry.path().string() +
                             ": not a profiler trace (no "
                             "traceEvents): left out of the folder's files");
          continue;
        }
        found.push_back(entry.path().string());
      }
      if (found.empty()) {
        throw UsageError(p + ": the folder holds no " + trace_names(format) +
                         folder_hint(p, format));
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else if (fs::exists(p, ec)) {
      // A device or FIFO: /dev/zero would read forever, a FIFO without a writer blocks.
      throw UsageError(p + ": not a regular file (a device, FIFO or socket); give the trace file");
    } else {
      throw UsageError(p + ": no such file or folder");
    }
  }
  return files;
}

RankTrace read_trace(const std::string& path, Format format) {
  if (format == Format::kNsys || (format == Format::kAuto && is_sqlite_file(path))) {
    return parse_nsys(path);
  }
  const std::string bytes = read_input(path);
  if (format == Format::kAuto) {
    const std::size_t first = bytes.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) throw UsageError(path + ": the file is empty");
    if (bytes[first] == '[') return parse_legacy(bytes, path);
    if (bytes[first] == '{') return parse_kineto(bytes, path);
    throw UsageError(path + ": byte offset " + std::to_string(first) +
                     ": not a profiler trace (neither JSON nor an Nsight Systems SQLite export)");
  }
  if (bytes.find_first_not_of(" \t\r\n") == std::string::npos)
    throw UsageError(path + ": the file is empty");
  return format == Format::kLegacy ? parse_legacy(bytes, path) : parse_kineto(bytes, path);
}

ImportedRun import_traces(const std::vector<std::string>& paths, const ImportOptions& options) {
  std::vector<std::string> notes;
  const std::vector<std::string> files = expand_inputs(paths, options.format, &notes);
  std::vector<RankTrace> traces = read_traces(files, options.format, options.rank_by);
  if (!traces.empty())
    traces.front().warnings.insert(traces.front().warnings.begin(), notes.begin(), notes.end());
  return build_run(std::move(traces), options);
}

}  // namespace culprit::importers
