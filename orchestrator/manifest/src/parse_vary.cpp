// [[vary]] blocks: the factor and its levels.
#include "parse_inject.hpp"
#include "parse_sections.hpp"

namespace culprit::manifest::detail {

VaryLevel parse_level(TomlReader& reader, const VarySpec& vary, const toml::node& node,
                      const std::string& path, bool any_phase) {
  VaryLevel level;
  level.path = path;
  level.where = reader.at(node);
  if (vary.factor == "version") {
    if (auto name = reader.text(node, path, {}, "levels = [\"v2\", \"v3\"]")) level.version = *name;
  } else if (vary.factor == "ranks") {
    if (auto ranks = reader.integer(node, path, 1, 1'000'000, "levels = [1, 2, 4]")) {
      level.ranks = static_cast<int>(*ranks);
    }
  } else if (vary.factor == "delay") {
    if (auto delay = parse_delay(reader, node, path, any_phase)) level.delay = delay->value;
  } else if (const ModelKey* key = find_model_key(vary.model_key)) {
    if (auto value = reader.model_value(node, *key, path)) level.model_value = *value;
  }
  return level;
}

std::vector<VarySpec> parse_vary(TomlReader& reader, const toml::node& node, bool any_phase) {
  std::vector<VarySpec> blocks;
  const toml::array* array = node.as_array();
  if (array == nullptr || !array->is_array_of_tables()) {
    reader.problem(reader.at(node), "vary", "an array of tables ([[vary]] blocks)", describe(node),
                   "write each factor as its own [[vary]] block (double brackets)");
    return blocks;
  }
  std::vector<std::string> factors = {"version", "ranks", "delay"};
  for (const auto& key : model_key_names()) factors.push_back("model." + key);
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::table& table = *array->get(i)->as_table();
    const std::string p = item_path("vary", i);
    reader.only_keys(table, p, {"factor", "levels"});
    VarySpec vary;
    vary.where = reader.at(table);
    bool factor_ok = false;
    if (const toml::node* factor =
            reader.required(table, "factor", p, "the varied factor", "factor = \"ranks\"")) {
      if (auto name =
              reader.text(*factor, child_path(p, "factor"), factors, "factor = \"ranks\"")) {
        vary.factor = *name;
        if (vary.factor.starts_with("model.")) vary.model_key = vary.factor.substr(6);
        factor_ok = true;
      }
    }
    const toml::node* levels =
        reader.required(table, "levels", p, "a non-empty array of levels", "levels = [1, 2, 4]");
    if (levels != nullptr) {
      const std::string levels_path = child_path(p, "levels");
      const toml::array* items = levels->as_array();
      if (items == nullptr || items->empty()) {
        reader.problem(reader.at(*levels), levels_path, "a non-empty array of levels",
                       items ? "an empty array" : describe(*levels),
                       "list at least one level, e.g. levels = [1, 2, 4]");
      } else if (factor_ok) {
        for (std::size_t j = 0; j < items->size(); ++j) {
          vary.levels.push_back(
              parse_level(reader, vary, *items->get(j), item_path(levels_path, j), any_phase));
        }
      }
    }
    blocks.push_back(std::move(vary));
  }
  return blocks;
}

}  // namespace culprit::manifest::detail
