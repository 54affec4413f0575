#pragma once
// `culprit import`'s dispatcher, the one module above the formats: folders expanded into trace
// files, each file's format recognised (or as told), read by its format's reader (the one list:
// src/formats.cpp), a format's files split into ranks, then the mapping rules
// (culprit/importers/build_run.hpp, importers/common). Every failure of the input throws
// culprit::UsageError naming the file (and the byte offset or table); nothing is written before
// every file has been read whole.

#include <string>
#include <vector>

#include "culprit/importers/build_run.hpp"

namespace culprit::importers {

enum class Format { kAuto, kKineto, kLegacy, kNsys };

Format parse_format(const std::string& text);   // auto|kineto|legacy|nsys, else UsageError
RankBy parse_rank_by(const std::string& text);  // auto|process|device, else UsageError
const char* format_name(Format format);

struct ImportOptions : BuildOptions {
  Format format = Format::kAuto;
  RankBy rank_by = RankBy::kAuto;  // the ranks inside one file (Nsight Systems, Kineto)
};

// Expands folders into their trace files (sorted by name), keeps files as given. A folder's
// small .json file without "traceEvents" (a config.json) is left out, said in `notes`; a folder
// without traces is refused with a hint (upper-case extensions, traces in a subfolder).
std::vector<std::string> expand_inputs(const std::vector<std::string>& paths, Format format,
                                       std::vector<std::string>* notes = nullptr);

// Reads one file (gzip is recognised by its magic bytes) into records: the file's, before a
// file holding several ranks is split.
RankTrace read_trace(const std::string& path, Format format);

// Reads `files` (in parallel, one thread per core), in their order, a file holding several ranks
// (Nsight Systems; Kineto with several GPUs) split into one RankTrace per rank by `rank_by`;
// throws the first file's error in that order.
std::vector<RankTrace> read_traces(const std::vector<std::string>& files, Format format,
                                   RankBy rank_by = RankBy::kAuto);

// Reads every file, applies the mapping rules and assembles the run file's contents.
ImportedRun import_traces(const std::vector<std::string>& paths, const ImportOptions& options);

}  // namespace culprit::importers
