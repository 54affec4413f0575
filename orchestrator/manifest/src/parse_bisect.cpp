// [bisect]: ordered versions or a git range.
#include <tuple>

#include "parse_sections.hpp"

namespace culprit::manifest::detail {

BisectSpec parse_bisect(TomlReader& reader, const toml::table& table) {
  BisectSpec bisect;
  bisect.where = reader.at(table);
  reader.only_keys(table, "bisect", {"versions", "git"});
  const toml::node* versions = table.get("versions");
  const toml::node* git = table.get("git");
  if ((versions == nullptr) == (git == nullptr)) {
    reader.problem(reader.at(table), "bisect", "exactly one of versions = [...] or git = {...}",
                   versions ? "both" : "neither",
                   "list ordered versions, or give git = { repo, good, bad, build, command }");
  }
  if (versions != nullptr) {
    const toml::array* names = versions->as_array();
    if (names == nullptr || names->size() < 2) {
      reader.problem(reader.at(*versions), "bisect.versions",
                     "an array of at least two version names, first good to last bad",
                     names ? std::to_string(names->size()) + " name(s)" : describe(*versions),
                     "write for example versions = [\"v1\", \"v2\", \"v3\"]");
    } else {
      for (std::size_t i = 0; i < names->size(); ++i) {
        if (auto name = reader.text(*names->get(i), item_path("bisect.versions", i), {},
                                    "versions = [\"v1\", \"v2\"]")) {
          bisect.versions.push_back(*name);
        }
      }
    }
  }
  if (git != nullptr) {
    const toml::table* spec = git->as_table();
    if (spec == nullptr) {
      reader.problem(reader.at(*git), "bisect.git", "a table { repo, good, bad, build, command }",
                     describe(*git),
                     "write git = { repo = \".\", good = \"v1.0\", bad = \"HEAD\", ... }");
      return bisect;
    }
    const std::string p = "bisect.git";
    reader.only_keys(*spec, p, {"repo", "good", "bad", "build", "command", "model_file"});
    GitBisectSpec g;
    for (auto [key, target, example] : {std::tuple{"repo", &g.repo, "repo = \".\""},
                                        std::tuple{"good", &g.good, "good = \"v1.0\""},
                                        std::tuple{"bad", &g.bad, "bad = \"HEAD\""}}) {
      if (const toml::node* node = reader.required(*spec, key, p, "a string", example)) {
        if (auto value = reader.text(*node, child_path(p, key), {}, example)) *target = *value;
      }
    }
    for (auto [key, target] : {std::pair{"build", &g.build}, std::pair{"command", &g.command}}) {
      if (const toml::node* node = spec->get(key)) {
        if (auto argv = reader.argv(*node, child_path(p, key), "[\"cmake\", \"--build\", \"b\"]")) {
          *target = *argv;
        }
      }
    }
    if (const toml::node* node = spec->get("model_file")) {
      if (auto value = reader.text(*node, child_path(p, "model_file"), {},
                                   "model_file = \"out/model.json\"")) {
        g.model_file = *value;
      }
    }
    bisect.git = g;
  }
  return bisect;
}

}  // namespace culprit::manifest::detail
