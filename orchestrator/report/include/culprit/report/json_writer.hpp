#pragma once
// A streaming JSON writer: keys in the order written, numbers in their shortest round-trip
// form, NaN and infinities as null. Misuse (a value without a key inside an object) is a bug
// and throws std::logic_error.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::report {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);
  JsonWriter& value(double number);
  JsonWriter& value(std::int64_t number);
  JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
  JsonWriter& value(bool flag);
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& null();
  // [lo, hi], or null where there is no interval (`present` false: too few samples for one).
  JsonWriter& interval_or_null(bool present, double lo, double hi);
  // A value that is already a JSON document (e.g. another reporter's output), copied as is.
  JsonWriter& raw(std::string_view json);
  // Shorthand for key(name).value(v).
  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }
  // key(name) then an array of `values`.
  template <typename T>
  JsonWriter& field(std::string_view name, const std::vector<T>& values) {
    key(name).begin_array();
    for (const T& v : values) value(v);
    return end_array();
  }
  // An array of one element per item of `items`, each written by `write(*this, item)`.
  template <typename Items, typename Write>
  JsonWriter& array_of(const Items& items, Write&& write) {
    begin_array();
    for (const auto& item : items) write(*this, item);
    return end_array();
  }
  // key(name) then the value, or null when there is none (nullopt, or "" for text).
  template <typename T>
  JsonWriter& field_or_null(std::string_view name, const std::optional<T>& v) {
    key(name);
    return v ? value(*v) : null();
  }
  JsonWriter& field_or_null(std::string_view name, std::string_view text) {
    key(name);
    return text.empty() ? null() : value(text);
  }
  // The document; throws std::logic_error while an object or array is still open.
  const std::string& str() const;

 private:
  void before_value();
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket, char closing);
  std::string out_;
  std::vector<char> open_;  // '{' or '['
  bool first_ = true;       // no element yet in the innermost container
  bool after_key_ = false;
};

// Rounds to a multiple of 0.01 (ms figures are stated to 0.01 ms).
double round_centi(double value);

}  // namespace culprit::report
