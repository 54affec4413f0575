#include "culprit/common/json.hpp"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace culprit {
namespace {

template <typename Number>
std::string integer_text(Number value) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

Json from_element(simdjson::dom::element element) {
  using simdjson::dom::element_type;
  switch (element.type()) {
    case element_type::ARRAY: {
      Json::Array items;
      for (simdjson::dom::element item : element.get_array()) items.push_back(from_element(item));
      return Json(std::move(items));
    }
    case element_type::OBJECT: {
      Json::Object fields;
      for (auto field : element.get_object()) {
        fields[std::string(field.key)] = from_element(field.value);
      }
      return Json(std::move(fields));
    }
    case element_type::INT64:
      return Json(std::int64_t{element.get_int64()});
    case element_type::UINT64:
      return Json(std::uint64_t{element.get_uint64()});
    case element_type::DOUBLE:
      return Json(double{element.get_double()});
    case element_type::STRING:
      return Json(std::string(std::string_view(element.get_string())));
    case element_type::BOOL:
      return Json(bool{element.get_bool()});
    case element_type::NULL_VALUE:
      return Json();
  }
  return Json();
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out.push_back(kHex[(c >> 4) & 0xF]);
          out.push_back(kHex[c & 0xF]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

std::string format_number(double value) {
  if (!std::isfinite(value)) throw std::invalid_argument("JSON cannot hold a non-finite number");
  if (value == 0) return "0";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

Json Json::parse(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (auto error = parser.parse(padded).get(root)) {
    throw std::invalid_argument(std::string("invalid JSON: ") + simdjson::error_message(error));
  }
  return from_element(root);
}

std::string Json::dump() const {
  std::string out;
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::nullptr_t>) {
          out += "null";
        } else if constexpr (std::is_same_v<T, bool>) {
          out += v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>) {
          out += integer_text(v);
        } else if constexpr (std::is_same_v<T, double>) {
          out += format_number(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          append_json_string(out, v);
        } else if constexpr (std::is_same_v<T, Array>) {
          out.push_back('[');
          for (std::size_t i = 0; i < v.size(); ++i) {
            if (i > 0) out.push_back(',');
            out += v[i].dump();
          }
          out.push_back(']');
        } else {
          out.push_back('{');
          bool first = true;
          for (const auto& [key, item] : v) {
            if (!first) out.push_back(',');
            first = false;
            append_json_string(out, key);
            out.push_back(':');
            out += item.dump();
          }
          out.push_back('}');
        }
      },
      value_);
  return out;
}

}  // namespace culprit
