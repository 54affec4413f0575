#include "source_text.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "culprit/errors.hpp"
#include "diagnostics.hpp"

namespace culprit::manifest::detail {
namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is invalid.
std::size_t utf8_sequence(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  unsigned min_next = 0x80, max_next = 0xBF;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) min_next = 0xA0;  // no overlong forms
    if (lead == 0xED) max_next = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) min_next = 0x90;
    if (lead == 0xF4) max_next = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    const unsigned next = byte(i + k);
    const unsigned lo = k == 1 ? min_next : 0x80;
    const unsigned hi = k == 1 ? max_next : 0xBF;
    if (next < lo || next > hi) return 0;
  }
  return length;
}

[[noreturn]] void not_text(const std::string& text, const std::string& path, std::size_t offset,
                           const std::string& what) {
  SourceLocation where{path, 1, 1};
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++where.line;
      where.column = 1;
    } else {
      ++where.column;
    }
  }
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(text[offset]));
  throw UsageError(format_problem(
      where, "", "a UTF-8 text file (TOML)",
      what + " (byte " + byte + " at offset " + std::to_string(offset) + ")",
      "check that this is the manifest and not a database, archive or binary; save it as UTF-8"));
}

}  // namespace

std::string read_manifest_file(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw UsageError(path +
                     ": is a directory, not a manifest; name a .toml file (examples are in "
                     "experiments/)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UsageError(path + ": cannot read the manifest: " + std::strerror(errno) +
                     "; check the path (examples are in experiments/)");
  }
  // A manifest is a page of text; /dev/zero or a log passed by mistake must not eat the memory.
  std::string text(kMaxManifestBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxManifestBytes) {
    throw UsageError(path + ": larger than " + std::to_string(kMaxManifestBytes / 1024) +
                     " KiB, not a manifest; check the path (a manifest is a short TOML file, "
                     "examples are in experiments/)");
  }
  return text;
}

void check_is_text(const std::string& text, const std::string& path) {
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\0') not_text(text, path, i, "binary data");
    const std::size_t length = utf8_sequence(text, i);
    if (length == 0) not_text(text, path, i, "invalid UTF-8");
    i += length;
  }
}

}  // namespace culprit::manifest::detail
