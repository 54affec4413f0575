#pragma once
// File bytes for the tokenizers: whole files, gzip inflated (zlib), with errors that name the
// file and the byte offset.

#include <string>

namespace culprit::importers {

bool is_gzip(const std::string& bytes);
// Inflates a gzip stream; UsageError naming `file` on a corrupt or truncated stream.
std::string gunzip(const std::string& bytes, const std::string& file);
// The file's bytes, inflated when gzip. UsageError when unreadable.
std::string read_input(const std::string& path);

}  // namespace culprit::importers
