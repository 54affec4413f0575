#pragma once
// Reading a manifest file and refusing what is not a TOML text before any parsing: empty
// files, binary files (NUL bytes) and invalid UTF-8.

#include <cstddef>
#include <string>

namespace culprit::manifest::detail {

// Manifests larger than this are refused (culprit::UsageError) before they are parsed.
inline constexpr std::size_t kMaxManifestBytes = std::size_t{1024} * 1024;

// Throws culprit::UsageError when the file cannot be read or is larger than kMaxManifestBytes.
std::string read_manifest_file(const std::string& path);

// Throws culprit::UsageError naming the line and column of the first offending byte.
void check_is_text(const std::string& text, const std::string& path);

}  // namespace culprit::manifest::detail
