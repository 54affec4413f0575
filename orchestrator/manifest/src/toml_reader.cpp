#include "toml_reader.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "culprit/common/text.hpp"

namespace culprit::manifest::detail {

std::string child_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

std::string item_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::string describe(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: {
      std::string text(*node.value<std::string_view>());
      if (text.size() > 40) text = text.substr(0, 37) + "...";
      return "string \"" + text + "\"";
    }
    case toml::node_type::integer:
      return "integer " + std::to_string(*node.value<std::int64_t>());
    case toml::node_type::floating_point: {
      const double value = *node.value<double>();
      return "float " + (std::isfinite(value) ? format_number(value) : std::string("nan/inf"));
    }
    case toml::node_type::boolean:
      return std::string("boolean ") + (*node.value<bool>() ? "true" : "false");
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date/time";
  }
}

SourceLocation TomlReader::at(const toml::node& node) const {
  const auto& begin = node.source().begin;
  return {file_, static_cast<int>(begin.line), static_cast<int>(begin.column)};
}

SourceLocation TomlReader::at(const toml::key& key) const {
  const auto& begin = key.source().begin;
  return {file_, static_cast<int>(begin.line), static_cast<int>(begin.column)};
}

void TomlReader::only_keys(const toml::table& table, const std::string& path,
                           const std::vector<std::string>& allowed) {
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
    const std::string scope = path.empty() ? "at the top level" : "in [" + path + "]";
    problem(at(key), child_path(path, name), "a known key " + scope, "an unknown key",
            suggest(name, allowed));
  }
}

const toml::node* TomlReader::required(const toml::table& table, std::string_view key,
                                       const std::string& path, std::string_view expected,
                                       std::string_view example) {
  const toml::node* node = table.get(key);
  if (node == nullptr) {
    problem(at(table), child_path(path, key), expected, "nothing (the key is missing)",
            "add " + std::string(example));
  }
  return node;
}

std::optional<std::int64_t> TomlReader::integer(const toml::node& node, const std::string& path,
                                                std::int64_t min, std::int64_t max,
                                                std::string_view example) {
  const std::string expected =
      "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  const auto value = node.value_exact<std::int64_t>();
  if (!value) {
    problem(at(node), path, expected, describe(node), "write for example " + std::string(example));
    return std::nullopt;
  }
  if (*value < min || *value > max) {
    problem(at(node), path, expected, describe(node), "write for example " + std::string(example));
    return std::nullopt;
  }
  return value;
}

std::optional<double> TomlReader::number(const toml::node& node, const std::string& path,
                                         double min, bool min_exclusive, double max,
                                         bool max_exclusive, std::string_view example) {
  std::string expected =
      std::string("a number ") + (min_exclusive ? "> " : ">= ") + format_number(min);
  if (max < std::numeric_limits<double>::max()) {
    expected += std::string(" and ") + (max_exclusive ? "< " : "<= ") + format_number(max);
  }
  std::optional<double> value;
  if (node.is_floating_point()) value = *node.value_exact<double>();
  if (node.is_integer()) value = static_cast<double>(*node.value_exact<std::int64_t>());
  const bool in_range = value && std::isfinite(*value) &&
                        (min_exclusive ? *value > min : *value >= min) &&
                        (max_exclusive ? *value < max : *value <= max);
  if (!in_range) {
    problem(at(node), path, expected, describe(node), "write for example " + std::string(example));
    return std::nullopt;
  }
  return value;
}

std::optional<bool> TomlReader::boolean(const toml::node& node, const std::string& path,
                                        std::string_view example) {
  const auto value = node.value_exact<bool>();
  if (!value) {
    problem(at(node), path, "true or false", describe(node),
            "write for example " + std::string(example) + " (no quotes)");
  }
  return value;
}

std::optional<std::string> TomlReader::text(const toml::node& node, const std::string& path,
                                            const std::vector<std::string>& choices,
                                            std::string_view example) {
  std::string expected = "a non-empty string";
  if (!choices.empty()) {
    expected = "one of ";
    for (std::size_t i = 0; i < choices.size(); ++i) {
      expected += (i > 0 ? ", \"" : "\"") + choices[i] + "\"";
    }
  }
  auto value = node.value_exact<std::string>();  // not const: returned by move
  if (!value || value->empty()) {
    problem(at(node), path, expected, describe(node), "write for example " + std::string(example));
    return std::nullopt;
  }
  // Names end up in tables on a terminal: an escape sequence there must not reach it raw.
  if (const auto control = first_control_character(*value)) {
    problem(at(node), path, "text without control characters",
            "a string with the control character " +
                fmt::format("U+{:04X}", static_cast<unsigned char>((*value)[*control])) +
                " at offset " + std::to_string(*control),
            "remove tabs, line breaks and escape sequences from the text");
    return std::nullopt;
  }
  if (!choices.empty() && std::find(choices.begin(), choices.end(), *value) == choices.end()) {
    std::string todo;
    if (const std::string best = closest_match(*value, choices); !best.empty()) {
      todo = "did you mean \"" + best + "\"?";
    } else {
      todo = "write for example " + std::string(example);
    }
    problem(at(node), path, expected, describe(node), todo);
    return std::nullopt;
  }
  return value;
}

std::optional<std::vector<std::string>> TomlReader::argv(const toml::node& node,
                                                         const std::string& path,
                                                         std::string_view example) {
  const std::string expected = "an argv array of strings (no shell is used)";
  const toml::array* items = node.as_array();
  if (items == nullptr) {
    const std::string todo = node.is_string()
                                 ? "split the command into words, e.g. " + std::string(example)
                                 : "write for example " + std::string(example);
    problem(at(node), path, expected, describe(node), todo);
    return std::nullopt;
  }
  if (items->empty()) {
    problem(at(node), path, expected, "an empty array",
            "name the program first, e.g. " + std::string(example));
    return std::nullopt;
  }
  std::vector<std::string> words;
  bool ok = true;
  for (std::size_t i = 0; i < items->size(); ++i) {
    const toml::node& item = *items->get(i);
    const auto word = item.value_exact<std::string>();
    if (!word || (i == 0 && word->empty())) {
      problem(at(item), item_path(path, i),
              i == 0 ? "the program name (a non-empty string)" : "a string", describe(item),
              "quote every argument, e.g. " + std::string(example));
      ok = false;
      continue;
    }
    words.push_back(*word);
  }
  if (!ok) return std::nullopt;
  return words;
}

std::optional<ModelValue> TomlReader::model_value(const toml::node& node, const ModelKey& key,
                                                  const std::string& path) {
  switch (key.field.index()) {
    case 0:
      if (auto v = integer(node, path, 1, static_cast<std::int64_t>(key.max), key.example)) {
        return ModelValue{*v};
      }
      return std::nullopt;
    case 1:
      if (auto v = number(node, path, key.min, key.min_exclusive, key.max, false, key.example)) {
        return ModelValue{*v};
      }
      return std::nullopt;
    case 2:
      if (auto v = boolean(node, path, key.example)) return ModelValue{*v};
      return std::nullopt;
    default: {
      std::vector<std::string> choices(key.choices.begin(), key.choices.end());
      if (auto v = text(node, path, choices, key.example)) return ModelValue{*v};
      return std::nullopt;
    }
  }
}

void TomlReader::read(const toml::table& table, std::string_view key, const std::string& parent,
                      int& target, std::int64_t min, std::int64_t max, std::string_view example) {
  if (const toml::node* node = table.get(key)) {
    if (auto value = integer(*node, child_path(parent, key), min, max, example)) {
      target = static_cast<int>(*value);
    }
  }
}

void TomlReader::read(const toml::table& table, std::string_view key, const std::string& parent,
                      std::string& target, const std::vector<std::string>& choices,
                      std::string_view example) {
  if (const toml::node* node = table.get(key)) {
    if (auto value = text(*node, child_path(parent, key), choices, example)) target = *value;
  }
}

}  // namespace culprit::manifest::detail
