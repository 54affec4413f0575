#include "source_text.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "culprit/common/utf8.hpp"
#include "culprit/errors.hpp"
#include "diagnostics.hpp"

namespace culprit::manifest::detail {
namespace {

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
