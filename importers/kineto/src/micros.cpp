#include <charconv>
#include <cmath>
#include <string>

#include "raw_event.hpp"

namespace culprit::importers {

namespace {

// "1e3", "1.5E-2": through a double (no real trace writes these; exact enough for them).
bool exponent_micros_to_ns(std::string_view text, std::int64_t& ns) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v) ||
      std::abs(v) > 9e15)
    return false;
  ns = std::llround(v * 1000.0);
  return true;
}

}  // namespace

bool micros_to_ns(std::string_view text, std::int64_t& ns) {
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t'))
    text.remove_suffix(1);
  if (text.empty()) return false;
  // One pass over the digits; an exponent sends the text through a double instead.
  bool negative = false;
  std::size_t i = 0;
  if (text[0] == '-') {
    negative = true;
    i = 1;
  }
  std::int64_t whole = 0;
  std::size_t digits = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
    if (whole > (INT64_MAX - 9) / 10) return false;
    whole = whole * 10 + (text[i] - '0');
  }
  if (digits == 0) return false;
  std::int64_t frac = 0;  // in ns: three decimals of µs, the fourth rounds
  if (i < text.size() && text[i] == '.') {
    ++i;
    int place = 0;
    bool round_up = false;
    std::size_t fdigits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++fdigits) {
      if (place < 3) {
        frac = frac * 10 + (text[i] - '0');
        ++place;
      } else if (place == 3) {
        round_up = text[i] >= '5';
        ++place;
      }
    }
    if (fdigits == 0) return false;
    for (; place < 3; ++place) frac *= 10;
    if (round_up) ++frac;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) return exponent_micros_to_ns(text, ns);
  if (i != text.size()) return false;
  if (whole > INT64_MAX / 1000 - 1) return false;
  ns = whole * 1000 + frac;
  if (negative) ns = -ns;
  return true;
}

}  // namespace culprit::importers
