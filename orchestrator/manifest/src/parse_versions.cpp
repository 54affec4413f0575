// [versions.NAME]: a version's command (argv, placeholders), environment, model overrides,
// injections and instrument.
#include <algorithm>
#include <cctype>

#include "culprit/common/placeholders.hpp"
#include "parse_inject.hpp"
#include "parse_sections.hpp"

namespace culprit::manifest::detail {

bool valid_version_name(std::string_view name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
           c == '+';
  });
}

// Only {config}, {out} and {python} are substituted ({{ and }} are literal braces); any other
// brace is kept as written, except a `{word}` of a placeholder's form, which is a typo of one.
void check_placeholders(TomlReader& reader, const toml::node& node, const std::string& path,
                        const std::vector<std::string>& argv) {
  static const std::vector<std::string> known = {"config", "out", "python"};
  for (const auto& word : argv) {
    if (const auto name = unknown_placeholder(word, known)) {
      reader.problem(reader.at(node), path, "only the placeholders {config}, {out} and {python}",
                     "'" + *name + "' in \"" + word + "\"",
                     "write {config} for the resolved configuration file, {out} for the run "
                     "file to write or {python} for [experiment] python; for a literal brace "
                     "write it twice ({" +
                         *name + "})");
    }
  }
}

VersionSpec parse_version(TomlReader& reader, const std::string& name, const toml::node& node) {
  const std::string p = child_path("versions", name);
  VersionSpec version;
  version.name = name;
  version.where = reader.at(node);
  const toml::table* table = node.as_table();
  if (std::any_of(name.begin(), name.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == '\x7f'; })) {
    reader.problem(reader.at(node), "versions", "a version name without control characters",
                   "a name with one", "rename the version (letters, digits, '-', '_', '.')");
    return version;
  }
  if (table == nullptr) {
    reader.problem(reader.at(node), p, "a table [versions." + name + "]", describe(node),
                   "write [versions." + name + "] with command = [\"...\"]");
    return version;
  }
  reader.only_keys(*table, p,
                   {"command", "env", "model", "inject", "description", "instrument", "step_rule"});
  version.instrument = parse_instrument(reader, *table, p);
  reader.read(*table, "description", p, version.description, {}, "description = \"...\"");
  if (const toml::node* command = table->get("command")) {
    const std::string example =
        "command = [\"./build/v2/bin/culprit-step\", \"--config\", "
        "\"{config}\", \"--out\", \"{out}\"]";
    if (auto argv = reader.argv(*command, child_path(p, "command"), example)) {
      check_placeholders(reader, *command, child_path(p, "command"), *argv);
      version.command = *argv;
    }
  }
  if (const toml::node* env = table->get("env")) {
    const std::string env_path = child_path(p, "env");
    if (const toml::table* vars = env->as_table()) {
      for (const auto& [key, value] : *vars) {
        const std::string var(key.str());
        const bool name_ok = !var.empty() && !std::isdigit(static_cast<unsigned char>(var[0])) &&
                             std::all_of(var.begin(), var.end(), [](char c) {
                               return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                             });
        if (!name_ok) {
          reader.problem(reader.at(key), child_path(env_path, var),
                         "an environment variable name (letters, digits, _)", "\"" + var + "\"",
                         "rename the variable");
          continue;
        }
        if (auto text = value.value_exact<std::string>()) {
          version.env[var] = *text;
        } else {
          reader.problem(reader.at(value), child_path(env_path, var), "a string", describe(value),
                         "quote the value, e.g. " + var + " = \"1\"");
        }
      }
    } else {
      reader.problem(reader.at(*env), env_path, "a table of strings", describe(*env),
                     "write for example env = { OMP_NUM_THREADS = \"1\" }");
    }
  }
  if (const toml::node* model = table->get("model")) {
    version.model = parse_model(reader, *model, child_path(p, "model"));
  }
  if (const toml::node* inject = table->get("inject")) {
    version.inject =
        parse_inject(reader, *inject, child_path(p, "inject"), !version.command.empty());
  }
  return version;
}

}  // namespace culprit::manifest::detail
