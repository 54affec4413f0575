// The inputs of an import: folders expanded into the trace files of the formats read.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

#include "culprit/errors.hpp"
#include "culprit/importers/import.hpp"
#include "formats.hpp"

namespace culprit::importers {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_trace_name(const std::string& name, Format f) {
  for (const FormatReader& r : format_readers()) {
    if (f != Format::kAuto && r.format != f) continue;
    for (std::string_view ext : r.extensions) {
      if (ends_with(name, ext)) return true;
    }
  }
  return false;
}

// The file names a folder is searched for, as the messages say them.
std::string trace_names(Format f) {
  std::vector<std::string_view> names;
  for (const FormatReader& r : format_readers()) {
    if (f != Format::kAuto && r.format != f) continue;
    for (std::string_view ext : r.extensions) {
      if (std::find(names.begin(), names.end(), ext) == names.end()) names.push_back(ext);
    }
  }
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i)
    list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
  if (f == Format::kAuto) return "trace file (" + list + ")";
  return list + " files, as --format " + format_name(f) + " reads";
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

}  // namespace

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

}  // namespace culprit::importers
