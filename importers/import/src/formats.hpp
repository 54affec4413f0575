#pragma once
// The trace formats `culprit import` reads, one row each (formats.cpp): how a folder's files of
// the format are named, how its content is recognised, which reader reads a file and which splits
// a job's files into ranks. A new format is a module of its own under importers/ (a tokenizer
// and a parser producing RankTrace) and one row here; nothing else in the dispatcher changes
// (Perfetto's reader registry: a format registers a reader, one place detects the format).

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/importers/import.hpp"

namespace culprit::importers {

struct FormatReader {
  Format format;
  const char* name;                              // --format's word, and RankTrace::format
  std::span<const std::string_view> extensions;  // the file names a folder is searched for
  // A database file (read from its path; recognised by SQLite's magic), else text (gzip
  // inflated; recognised by its first non-blank byte, `opens_with`).
  bool database;
  char opens_with;
  RankTrace (*read_database)(const std::string& path);
  RankTrace (*read_text)(const std::string& bytes, const std::string& path);
  // Splits and numbers the ranks of a job's files of this format, each file read whole; nullptr
  // where a file is one rank.
  std::vector<RankTrace> (*split_ranks)(std::vector<RankTrace> files, RankBy by);
};

// Every format, in the order --format lists them.
std::span<const FormatReader> format_readers();
// The reader of `format` (not kAuto).
const FormatReader& reader_of(Format format);

}  // namespace culprit::importers
