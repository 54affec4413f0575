#pragma once
// Reading a manifest file and refusing what is not a TOML text before any parsing: empty
// files, binary files (NUL bytes) and invalid UTF-8.

#include <string>

namespace culprit::manifest::detail {

// Throws culprit::UsageError when the file cannot be read.
std::string read_manifest_file(const std::string& path);

// Throws culprit::UsageError naming the line and column of the first offending byte.
void check_is_text(const std::string& text, const std::string& path);

}  // namespace culprit::manifest::detail
