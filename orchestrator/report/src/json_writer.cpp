#include "culprit/report/json_writer.hpp"

#include "culprit/common/json.hpp"

#include <cmath>
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

JsonWriter& JsonWriter::open(char bracket) {
  before_value();
  out_ += bracket;
  open_.push_back(bracket);
  first_ = true;
  return *this;
}

JsonWriter& JsonWriter::close(char bracket, char closing) {
  // A key still waiting for its value leaves the object unbalanced too.
  if (open_.empty() || open_.back() != bracket || after_key_) {
    throw std::logic_error(bracket == '{' ? "unbalanced JSON object" : "unbalanced JSON array");
  }
  open_.pop_back();
  out_ += closing;
  first_ = false;
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  return open('{');
}

JsonWriter& JsonWriter::end_object() {
  return close('{', '}');
}

JsonWriter& JsonWriter::begin_array() {
  return open('[');
}

JsonWriter& JsonWriter::end_array() {
  return close('[', ']');
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
  append_json_string(out_, name);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number)) return null();
  before_value();
  out_ += format_number(number);  // the canonical form: shortest round trip, no "-0"
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
  append_json_string(out_, text);
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::interval_or_null(bool present, double lo, double hi) {
  return present ? begin_array().value(lo).value(hi).end_array() : null();
}

const std::string& JsonWriter::str() const {
  if (!open_.empty()) throw std::logic_error("JSON document still open");
  return out_;
}

double round_centi(double value) {
  return std::round(value * 100.0) / 100.0;
}

}  // namespace culprit::report
