#include "culprit/importers/input.hpp"

#include <libdeflate.h>
#include <simdjson.h>
#include <zlib.h>

#include <memory>

#include "culprit/common/named_file.hpp"
#include "culprit/common/utf8.hpp"
#include "culprit/errors.hpp"

namespace culprit::importers {

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

namespace {

// Deflate's largest ratio: a stream never inflates to more than about 1032 bytes per byte.
constexpr std::size_t kMaxDeflateRatio = 1032;

// The output buffer to start with. The trailer's ISIZE is the (last member's) size mod 2^32:
// exact for a whole file. A truncated or damaged file ends in 4 arbitrary bytes, and trusting
// them made a 25 KB truncated trace allocate and zero 850 MB (a damaged ISIZE: 4 GB, 50 s), so
// an ISIZE that deflate cannot reach from this many bytes is ignored; the buffer then grows.
std::size_t first_output_guess(const std::string& bytes) {
  const std::size_t fallback = bytes.size() * 4 + 4096;
  if (bytes.size() < 18) return fallback;
  const auto* t = reinterpret_cast<const unsigned char*>(bytes.data() + bytes.size() - 4);
  const std::size_t isize = t[0] | (t[1] << 8) | (t[2] << 16) | (std::size_t{t[3]} << 24);
  if (isize < bytes.size() || isize / kMaxDeflateRatio > bytes.size()) return fallback;
  return isize;
}

// zlib, slower than libdeflate, but it tells where a damaged stream breaks.
std::string gunzip_zlib(const std::string& bytes, const std::string& file) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw UsageError(file + ": cannot start zlib");
  std::string out;
  const std::size_t guess = first_output_guess(bytes) + 1;
  out.reserve(guess + 64);
  out.resize(guess);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  int rc = Z_OK;
  while (true) {
    if (z.total_out >= out.size()) {
      out.reserve(out.size() * 2 + 64);
      out.resize(out.size() * 2);
    }
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
  // Damaged data (a bad block, or a trailer whose CRC or length disagrees) is Z_DATA_ERROR, even
  // at the last byte; input that ends mid-stream is Z_BUF_ERROR with nothing left to read.
  const std::string what = rc == Z_DATA_ERROR ? std::string("corrupt gzip stream (zlib: ") +
                                                    (z.msg ? z.msg : "invalid data") + ")"
                           : z.avail_in == 0 ? std::string("truncated gzip stream")
                                             : std::string("corrupt gzip stream");
  inflateEnd(&z);
  if (rc != Z_STREAM_END) {
    throw UsageError(file + ": " + what + " at compressed byte offset " +
                     std::to_string(in_offset) +
                     ": copy the file again from where the profiler wrote it");
  }
  out.resize(produced);
  return out;
}

}  // namespace

std::string gunzip(const std::string& bytes, const std::string& file) {
  struct Free {
    void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
  };
  std::unique_ptr<libdeflate_decompressor, Free> d(libdeflate_alloc_decompressor());
  if (!d) return gunzip_zlib(bytes, file);
  std::size_t guess = first_output_guess(bytes);
  std::string out;
  std::size_t in_at = 0, out_at = 0;
  while (in_at < bytes.size()) {  // one iteration per gzip member
    out.reserve(out_at + guess + 64);
    out.resize(out_at + guess);
    std::size_t used_in = 0, produced = 0;
    const libdeflate_result rc =
        libdeflate_gzip_decompress_ex(d.get(), bytes.data() + in_at, bytes.size() - in_at,
                                      out.data() + out_at, guess, &used_in, &produced);
    if (rc == LIBDEFLATE_INSUFFICIENT_SPACE) {
      guess *= 2;
      continue;
    }
    if (rc != LIBDEFLATE_SUCCESS) return gunzip_zlib(bytes, file);  // for the error's offset
    in_at += used_in;
    out_at += produced;
  }
  out.resize(out_at);
  return out;
}

std::string read_input(const std::string& path) {
  std::string bytes = read_named_file(path, "a profiler trace");
  if (is_gzip(bytes)) bytes = gunzip(bytes, path);
  // A byte-order mark (some editors and Windows tools write one) was "not a profiler trace".
  if (bytes.starts_with("\xEF\xBB\xBF")) bytes.replace(0, 3, "   ");
  return bytes;
}

std::size_t first_invalid_utf8(std::string_view text) {
  if (simdjson::validate_utf8(text.data(), text.size())) return std::string_view::npos;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string replace_invalid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace culprit::importers
