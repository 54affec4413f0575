#include "culprit/report/json_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace culprit::report {

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!open_.empty() && open_.back() == '{') throw std::logic_error("JSON value without a key");
  if (!first_) out_ += ',';
  first_ = false;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  open_.push_back('{');
  first_ = true;
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  if (open_.empty() || open_.back() != '{' || after_key_)
    throw std::logic_error("unbalanced JSON object");
  open_.pop_back();
  out_ += '}';
  first_ = false;
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  open_.push_back('[');
  first_ = true;
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  if (open_.empty() || open_.back() != '[') throw std::logic_error("unbalanced JSON array");
  open_.pop_back();
  out_ += ']';
  first_ = false;
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  out_ += json;
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  if (open_.empty() || open_.back() != '{' || after_key_)
    throw std::logic_error("JSON key outside an object");
  if (!first_) out_ += ',';
  first_ = false;
  write_string(name);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number)) return null();
  before_value();
  if (number == 0) number = 0;  // no "-0"
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, number);
  out_.append(buffer, end);
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t number) {
  before_value();
  out_ += std::to_string(number);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  before_value();
  out_ += flag ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  before_value();
  write_string(text);
  return *this;
}

void JsonWriter::write_string(std::string_view text) {
  out_ += '"';
  for (char c : text) {
    switch (c) {
      case '"':
        out_ += "\\\"";
        break;
      case '\\':
        out_ += "\\\\";
        break;
      case '\n':
        out_ += "\\n";
        break;
      case '\t':
        out_ += "\\t";
        break;
      case '\r':
        out_ += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
          out_ += buffer;
        } else {
          out_ += c;
        }
    }
  }
  out_ += '"';
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

const std::string& JsonWriter::str() const {
  if (!open_.empty()) throw std::logic_error("JSON document still open");
  return out_;
}

double round_centi(double value) {
  return std::round(value * 100.0) / 100.0;
}

}  // namespace culprit::report
