#pragma once
// File bytes for the tokenizers: whole files, gzip inflated (zlib), with errors that name the
// file and the byte offset.

#include <string>
#include <string_view>

namespace culprit::importers {

bool is_gzip(const std::string& bytes);
// Inflates a gzip stream; UsageError naming `file` on a corrupt or truncated stream.
std::string gunzip(const std::string& bytes, const std::string& file);
// The file's bytes, inflated when gzip, a UTF-8 byte-order mark turned into spaces (JSON
// whitespace: byte offsets stay those of the file). UsageError when unreadable.
std::string read_input(const std::string& path);

// The offset of the first byte that is not part of valid UTF-8, npos when all is valid.
std::size_t first_invalid_utf8(std::string_view text);
// `text` with each byte that is not part of valid UTF-8 replaced by U+FFFD.
std::string replace_invalid_utf8(std::string_view text);

}  // namespace culprit::importers
