#include "culprit/importers/input.hpp"

#include <zlib.h>

#include <fstream>
#include <sstream>

#include "culprit/errors.hpp"

namespace culprit::importers {

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(const std::string& bytes, const std::string& file) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw UsageError(file + ": cannot start zlib");
  std::string out;
  out.resize(bytes.size() * 4 + 4096);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  int rc = Z_OK;
  while (true) {
    if (z.total_out >= out.size()) out.resize(out.size() * 2);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + z.total_out);
    z.avail_out = static_cast<uInt>(out.size() - z.total_out);
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      // Concatenated members (gzip allows them): continue with the next one.
      if (z.avail_in == 0) break;
      const uLong done = z.total_out;
      inflateReset(&z);
      z.total_out = done;
      continue;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) break;
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;
  }
  const auto in_offset = bytes.size() - z.avail_in;
  const auto produced = z.total_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END) {
    throw UsageError(file + ": " +
                     (z.avail_in == 0 ? std::string("truncated gzip stream")
                                      : std::string("corrupt gzip stream")) +
                     " at compressed byte offset " + std::to_string(in_offset) +
                     ": copy the file again from where the profiler wrote it");
  }
  out.resize(produced);
  return out;
}

std::string read_input(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot open the file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string bytes = buffer.str();
  if (in.bad()) throw UsageError(path + ": read error");
  return is_gzip(bytes) ? gunzip(bytes, path) : bytes;
}

}  // namespace culprit::importers
