#include "legacy_tokenizer.hpp"

#include <cctype>
#include <charconv>
#include <functional>

#include "culprit/errors.hpp"

namespace culprit::importers {
namespace {

// The deepest nesting of arrays and objects a value may have (simdjson's default).
constexpr int kMaxDepth = 1024;

class Scanner {
 public:
  Scanner(const std::string& bytes, const std::string& file) : s_(bytes), file_(file) {}

  [[noreturn]] void fail(const std::string& what) const {
    const bool truncated = pos_ >= s_.size();
    throw UsageError(file_ + ": byte offset " + std::to_string(pos_) + ": " +
                     (truncated ? "the file ends early (truncated?) while reading " : "") + what +
                     ": not a legacy export_chrome_trace array (damaged or of another format; "
                     "try --format kineto)");
  }
  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t'))
      ++pos_;
  }
  bool peek(char c) {
    skip_ws();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  void expect(char c) {
    if (!peek(c)) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool literal(std::string_view text) {
    if (s_.compare(pos_, text.size(), text) == 0) {
      pos_ += text.size();
      return true;
    }
    return false;
  }
  // A JSON string with escapes (keys and values other than names).
  std::string_view string() {
    expect('"');
    const std::size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\') ++pos_;
      ++pos_;
    }
    if (pos_ >= s_.size()) fail("a string");
    return std::string_view(s_).substr(start, pos_++ - start);
  }
  // The name: raw text up to the writer's next key.
  std::string_view raw_name() {
    constexpr std::string_view end = "\", \"ph\": \"";
    const std::size_t stop = s_.find(end, pos_);
    if (stop == std::string::npos) fail("an event name (no \"ph\" after it)");
    std::string_view name = std::string_view(s_).substr(pos_, stop - pos_);
    pos_ = stop + 1;  // at ", "ph": ..."
    return name;
  }
  std::string_view number() {
    skip_ws();
    const std::size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '-' ||
            s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E' || s_[pos_] == '+'))
      ++pos_;
    if (start == pos_) fail("a number");
    return std::string_view(s_).substr(start, pos_ - start);
  }
  // Skips any JSON value (args are ignored: the legacy writer leaves them empty). The nesting
  // is bounded as simdjson bounds the Kineto reader's: a damaged file of 30,000 '[' overflowed
  // the stack of a reading thread (found by fuzz_import_legacy).
  void skip_value(int depth = 0) {
    skip_ws();
    if (pos_ >= s_.size()) fail("a value");
    const char c = s_[pos_];
    if (c == '"') {
      string();
    } else if (c == '{' || c == '[') {
      if (depth >= kMaxDepth) {
        fail("a value nested deeper than " + std::to_string(kMaxDepth) + " levels");
      }
      const char close = c == '{' ? '}' : ']';
      ++pos_;
      if (peek(close)) {
        ++pos_;
        return;
      }
      while (true) {
        if (c == '{') {
          string();
          expect(':');
        }
        skip_value(depth + 1);
        if (peek(',')) {
          ++pos_;
          continue;
        }
        expect(close);
        return;
      }
    } else if (literal("true") || literal("false") || literal("null")) {
    } else {
      number();
    }
  }
  std::size_t pos() const { return pos_; }
  bool at_end() {
    skip_ws();
    return pos_ >= s_.size();
  }

 private:
  const std::string& s_;
  const std::string& file_;
  std::size_t pos_ = 0;
};

std::int64_t id_value(Scanner& in, std::string_view text_or_number, bool quoted) {
  if (quoted) {
    return -static_cast<std::int64_t>(std::hash<std::string_view>{}(text_or_number) >> 2) - 1;
  }
  std::int64_t n = 0;
  auto [p, ec] =
      std::from_chars(text_or_number.data(), text_or_number.data() + text_or_number.size(), n);
  if (ec != std::errc() || p != text_or_number.data() + text_or_number.size())
    in.fail("an integer thread or process id");
  return n;
}

}  // namespace

std::int64_t tokenize_legacy(const std::string& bytes, const std::string& file,
                             const RawEventSink& sink) {
  Scanner in(bytes, file);
  in.expect('[');
  std::int64_t count = 0;
  if (in.peek(']')) {
    in.expect(']');
  } else {
    while (true) {
      in.expect('{');
      RawEvent e;
      e.offset = in.pos() - 1;
      in.skip_ws();
      if (!in.literal("\"name\": \"")) in.fail("'\"name\": \"' first in an event");
      e.name = in.raw_name();
      while (true) {
        in.expect(',');
        const std::string_view key = in.string();
        in.expect(':');
        if (key == "ph") {
          e.ph = in.string();
        } else if (key == "cat") {
          e.cat = in.string();
        } else if (key == "ts" || key == "dur") {
          std::int64_t ns = 0;
          if (!micros_to_ns(in.number(), ns)) in.fail("a timestamp in µs");
          (key == "ts" ? e.ts_ns : e.dur_ns) = ns;
          (key == "ts" ? e.has_ts : e.has_dur) = true;
        } else if (key == "tid" || key == "pid") {
          const bool quoted = in.peek('"');
          const std::string_view v = quoted ? in.string() : in.number();
          (key == "tid" ? e.tid : e.pid) = id_value(in, v, quoted);
        } else {
          in.skip_value();
        }
        if (in.peek('}')) break;
      }
      in.expect('}');
      ++count;
      sink(e);
      if (in.peek(',')) {
        in.expect(',');
        continue;
      }
      in.expect(']');
      break;
    }
  }
  if (!in.at_end()) in.fail("text after the closing ']'");
  return count;
}

}  // namespace culprit::importers
