#pragma once
// A small JSON value with one canonical text form: object keys sorted, no whitespace, integers
// as integers, doubles in their shortest round-trip form. Equal values give equal text, so
// hashing the text identifies a configuration.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace culprit {

class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::map<std::string, Json>;

  Json() = default;  // null
  Json(bool value) : value_(value) {}
  Json(int value) : value_(std::int64_t{value}) {}
  Json(std::int64_t value) : value_(value) {}
  Json(std::uint64_t value) : value_(value) {}
  Json(double value) : value_(value) {}
  Json(const char* value) : value_(std::string(value)) {}
  Json(std::string value) : value_(std::move(value)) {}
  Json(Array value) : value_(std::move(value)) {}
  Json(Object value) : value_(std::move(value)) {}

  // Parses JSON text (e.g. a canonical document written by dump()). Throws std::invalid_argument.
  static Json parse(std::string_view text);

  bool is_object() const { return std::holds_alternative<Object>(value_); }
  Object& object() { return std::get<Object>(value_); }
  const Object& object() const { return std::get<Object>(value_); }

  std::string dump() const;  // canonical compact text

  friend bool operator==(const Json&, const Json&) = default;

 private:
  std::variant<std::nullptr_t, bool, std::int64_t, std::uint64_t, double, std::string, Array,
               Object>
      value_ = nullptr;
};

// Appends `text` as a JSON string (quoted; quote, backslash and control characters escaped).
void append_json_string(std::string& out, std::string_view text);

// The canonical text of one double (shortest round-trip form; -0 written as 0).
std::string format_number(double value);

}  // namespace culprit
