#include "culprit/common/named_file.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "culprit/errors.hpp"

namespace culprit {

namespace {
constexpr std::size_t kPadding = 64;
constexpr std::size_t kChunk = std::size_t{1} << 16;
}  // namespace

std::string read_named_file(const std::string& path, std::string_view what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) {
    throw UsageError(path + ": no such file; check the path to " + std::string(what));
  }
  // A path it cannot look at (a folder on the way that this user may not enter).
  if (ec) throw UsageError(path + ": cannot be read (" + ec.message() + ")");
  if (fs::is_directory(status)) {
    throw UsageError(path + ": is a folder, not " + std::string(what) + "; name the file itself");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot open the file (is it readable?)");
  std::string bytes;
  const std::uintmax_t size = fs::is_regular_file(status) ? fs::file_size(path, ec) : 0;
  // Room for a JSON tokenizer's padding, so the trace readers never copy the bytes again.
  bytes.reserve(static_cast<std::size_t>(ec ? 0 : size) + kPadding);
  // In chunks rather than by the size seen above: a file still being written, or a pipe.
  std::string chunk(kChunk, '\0');
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    bytes.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) {
    throw UsageError(path + ": read error after " + std::to_string(bytes.size()) + " bytes");
  }
  return bytes;
}

}  // namespace culprit
