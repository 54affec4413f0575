#include "culprit/importers/units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <utility>

namespace culprit::importers {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

enum class Base { kNone, kTime, kByte, kHertz, kCycle, kWatt };

struct Term {
  Base base = Base::kNone;
  double prefix = 1.0;
};

// Decimal prefixes as the tools print them (ncu's default --print-units base is SI), and the
// binary ones some exporters use.
std::optional<double> prefix_factor(std::string_view p) {
  static constexpr std::array<std::pair<std::string_view, double>, 13> kPrefixes = {{
      {"", 1.0},
      {"n", 1e-9},
      {"u", 1e-6},
      {"\xC2\xB5", 1e-6},  // µ
      {"m", 1e-3},
      {"K", 1e3},
      {"k", 1e3},
      {"M", 1e6},
      {"G", 1e9},
      {"T", 1e12},
      {"Ki", 1024.0},
      {"Mi", 1024.0 * 1024.0},
      {"Gi", 1024.0 * 1024.0 * 1024.0},
  }};
  for (const auto& [name, factor] : kPrefixes) {
    if (name == p) return factor;
  }
  return std::nullopt;
}

// One side of a unit (no '/'): a prefix and a base name.
std::optional<Term> parse_term(std::string_view t) {
  static constexpr std::array<std::pair<std::string_view, Base>, 13> kBases = {{
      {"seconds", Base::kTime},
      {"second", Base::kTime},
      {"sec", Base::kTime},
      {"s", Base::kTime},
      {"bytes", Base::kByte},
      {"byte", Base::kByte},
      {"B", Base::kByte},
      {"hz", Base::kHertz},
      {"Hz", Base::kHertz},
      {"HZ", Base::kHertz},
      {"cycles", Base::kCycle},
      {"cycle", Base::kCycle},
      {"W", Base::kWatt},
  }};
  for (const auto& [name, base] : kBases) {
    if (t.size() < name.size() || t.substr(t.size() - name.size()) != name) continue;
    const auto prefix = prefix_factor(t.substr(0, t.size() - name.size()));
    if (!prefix) continue;
    // "ms" is milli-second but "Ms" is not a time anyone writes; a cycle has no prefix.
    if (base == Base::kCycle && *prefix != 1.0) return std::nullopt;
    return Term{base, *prefix};
  }
  return std::nullopt;
}

CanonicalUnit known(std::string unit, double factor) {
  return CanonicalUnit{std::move(unit), factor, true};
}

std::optional<CanonicalUnit> single(const Term& t) {
  switch (t.base) {
    case Base::kTime:
      return known("ns", t.prefix * 1e9);
    case Base::kByte:
      return known("byte", t.prefix);
    case Base::kHertz:
      return known("hz", t.prefix);
    case Base::kCycle:
      return known("cycle", 1.0);
    case Base::kWatt:
      return known("W", t.prefix);
    case Base::kNone:
      break;
  }
  return std::nullopt;
}

std::optional<CanonicalUnit> ratio(const Term& num, const Term& den) {
  if (den.base != Base::kTime) return std::nullopt;
  const double per_second = num.prefix / den.prefix;
  if (num.base == Base::kCycle) return known("hz", per_second);
  if (num.base == Base::kByte) return known("byte/s", per_second);
  return std::nullopt;
}

}  // namespace

CanonicalUnit canonical_unit(std::string_view unit) {
  const std::string_view u = trim(unit);
  if (u.empty()) return known("", 1.0);
  if (u == "%" || u == "pct" || u == "percent") return known("%", 1.0);
  if (u == "C" || u == "celsius" || u == "degC" ||
      u == "\xC2\xB0"
           "C")
    return known("C", 1.0);
  if (u == "watt" || u == "watts") return known("W", 1.0);
  std::optional<CanonicalUnit> out;
  const auto slash = u.find('/');
  if (slash == std::string_view::npos) {
    if (const auto t = parse_term(u)) out = single(*t);
  } else {
    const auto num = parse_term(trim(u.substr(0, slash)));
    const auto den = parse_term(trim(u.substr(slash + 1)));
    if (num && den) out = ratio(*num, *den);
  }
  if (out) return *out;
  return CanonicalUnit{std::string(u), 1.0, false};
}

namespace {

// "9,589,248" or "1,234.5": groups of three digits after the first group of one to three.
bool thousands_grouped(std::string_view s) {
  std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  const std::size_t end = s.find('.') == std::string_view::npos ? s.size() : s.find('.');
  std::size_t digits = 0;
  bool comma = false;
  for (; i < end; ++i) {
    if (s[i] == ',') {
      if (digits == 0 || (comma && digits != 3) || (!comma && digits > 3)) return false;
      comma = true;
      digits = 0;
    } else if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      ++digits;
    } else {
      return false;
    }
  }
  return comma && digits == 3;
}

}  // namespace

std::optional<double> parse_number(std::string_view text) {
  std::string_view s = trim(text);
  if (s.empty()) return std::nullopt;
  std::string plain;
  if (s.find(',') != std::string_view::npos) {
    if (!thousands_grouped(s)) return std::nullopt;
    for (const char c : s) {
      if (c != ',') plain += c;
    }
    s = plain;
  }
  for (const char c : s) {  // digits, sign, point and exponent only: no nan, inf, hex
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '-' && c != '+' && c != '.' &&
        c != 'e' && c != 'E') {
      return std::nullopt;
    }
  }
  if (s.front() == '+') s.remove_prefix(1);
  double value = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

}  // namespace culprit::importers
