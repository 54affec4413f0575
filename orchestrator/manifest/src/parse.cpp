// TOML text -> Manifest. Every section is read by one function (parse_sections.hpp, a file per
// section); each problem is reported with its location and reading goes on, so the user sees all
// mistakes at once.

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "culprit/common/sha256.hpp"
#include "culprit/errors.hpp"
#include "culprit/manifest/manifest.hpp"
#include "parse_sections.hpp"
#include "source_text.hpp"
#include "toml_reader.hpp"

namespace culprit::manifest {
namespace {

using detail::child_path;
using detail::describe;
using detail::item_path;
using detail::kBaselineKeys;
using detail::kExperimentKeys;
using detail::kLaunchKeys;
using detail::kStatsKeys;
using detail::TomlReader;

const std::vector<std::string> kSections = {"experiment", "stats",  "baseline",     "versions",
                                            "vary",       "bisect", "reduced_from", "launch"};

// A section key written at the top level ("repetitions = 5" above [experiment]) is the most
// common slip; say where it belongs.
std::string home_section(const std::string& key) {
  for (const auto& [section, keys] :
       {std::pair{"experiment", &kExperimentKeys}, std::pair{"stats", &kStatsKeys},
        std::pair{"baseline", &kBaselineKeys}, std::pair{"launch", &kLaunchKeys}}) {
    if (std::find(keys->begin(), keys->end(), key) != keys->end()) return section;
  }
  return "";
}

const toml::table* section(TomlReader& reader, const toml::table& root, std::string_view name,
                           std::string_view example) {
  const toml::node* node = root.get(name);
  if (node == nullptr) return nullptr;
  if (!node->is_table()) {
    reader.problem(reader.at(*node), name, "a table [" + std::string(name) + "]", describe(*node),
                   "write it as a table, e.g. " + std::string(example));
    return nullptr;
  }
  return node->as_table();
}

toml::table parse_toml(const std::string& text, const std::string& path) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    throw UsageError(
        detail::format_problem({path, static_cast<int>(begin.line), static_cast<int>(begin.column)},
                               "", "valid TOML", "a syntax error: " + std::string(e.description()),
                               "fix the syntax at that place (TOML reference: https://toml.io)"));
  }
}

void check_version_defined(TomlReader& reader, const Manifest& manifest, const std::string& name,
                           const SourceLocation& where, const std::string& path) {
  if (manifest.versions.contains(name)) return;
  std::vector<std::string> defined;
  for (const auto& [known, spec] : manifest.versions) defined.push_back(known);
  reader.problem(where, path, "a version defined as [versions.NAME]",
                 "undefined version \"" + name + "\"",
                 detail::suggest(name, defined) + "; or add [versions." + name + "]");
}

void check_references(TomlReader& reader, Manifest& manifest) {
  const auto& s = manifest.settings;
  if (!manifest.baseline.version.empty()) {
    check_version_defined(reader, manifest, manifest.baseline.version,
                          manifest.baseline.version_where, "baseline.version");
  }
  std::set<std::string> factors;
  for (std::size_t i = 0; i < manifest.vary.size(); ++i) {
    const VarySpec& vary = manifest.vary[i];
    if (vary.factor == "version") {
      for (const auto& level : vary.levels) {
        if (!level.version.empty()) {
          check_version_defined(reader, manifest, level.version, level.where, level.path);
        }
      }
    }
    if (s.design == "factorial" && !vary.factor.empty() && !factors.insert(vary.factor).second) {
      reader.problem(vary.where, item_path("vary", i) + ".factor",
                     "each factor in one [[vary]] block in a factorial design",
                     "factor \"" + vary.factor + "\" again",
                     "merge the levels into the first [[vary]] block of that factor");
    }
  }
  if (manifest.bisect) {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < manifest.bisect->versions.size(); ++i) {
      const std::string& name = manifest.bisect->versions[i];
      check_version_defined(reader, manifest, name, manifest.bisect->where,
                            item_path("bisect.versions", i));
      if (!seen.insert(name).second) {
        reader.problem(manifest.bisect->where, item_path("bisect.versions", i),
                       "each version once, in order", "\"" + name + "\" twice",
                       "remove the repeated name");
      }
    }
  }
}

// The TOML of a manifest; a blank file or one of comments only is refused with what to write.
toml::table parse_root(const std::string& text, const std::string& path) {
  detail::check_is_text(text, path);
  const bool blank = std::all_of(
      text.begin(), text.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  const std::string empty_todo =
      "write at least [experiment] name and [baseline]; see docs/manifest.md or copy "
      "experiments/versions.toml";
  if (blank) {
    throw UsageError(
        detail::format_problem({path, 1, 1}, "", "a TOML manifest", "an empty file", empty_todo));
  }
  toml::table root = parse_toml(text, path);
  if (root.empty()) {
    throw UsageError(
        detail::format_problem({path, 1, 1}, "", "a TOML manifest", "only comments", empty_todo));
  }
  return root;
}

void check_top_level(TomlReader& reader, const toml::table& root) {
  for (const auto& [key, node] : root) {
    const std::string name(key.str());
    if (std::find(kSections.begin(), kSections.end(), name) != kSections.end()) continue;
    const std::string home = home_section(name);
    reader.problem(
        reader.at(key), name, "a section (" + detail::join(kSections, ", ") + ")", "an unknown key",
        home.empty() ? detail::suggest(name, kSections) : "move it under [" + home + "]");
  }
}

void parse_versions(TomlReader& reader, const toml::table& table, Manifest& manifest) {
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    if (!detail::valid_version_name(name)) {
      reader.problem(reader.at(key), "versions." + name,
                     "a version name of letters, digits, '.', '_', '-', '+'", "\"" + name + "\"",
                     "rename the version, e.g. [versions.v2]");
      continue;
    }
    manifest.versions[name] = detail::parse_version(reader, name, node);
  }
}

// Every section, in the order their checks need ([baseline] before [[vary]]: its schedule
// names the phases delays may target).
void parse_sections(TomlReader& reader, const toml::table& root, Manifest& manifest) {
  if (auto* t = section(reader, root, "experiment", "[experiment] name = \"x\"")) {
    detail::parse_experiment(reader, *t, manifest.settings);
  }
  if (auto* t = section(reader, root, "stats", "[stats] alpha = 0.05")) {
    detail::parse_stats(reader, *t, manifest.settings);
  }
  // Delays of the baseline and of [[vary]] levels run in the baseline's version: a custom
  // program there accepts its own region names as phases (compose checks the rest).
  const bool baseline_custom =
      detail::runs_custom_command(root, detail::raw_baseline_version(root));
  if (auto* t = section(reader, root, "launch", "[launch] launcher = \"auto\"")) {
    detail::parse_launch(reader, *t, manifest.settings.launch);
  }
  if (auto* t = section(reader, root, "baseline", "[baseline] ranks = 2")) {
    detail::parse_baseline(reader, *t, manifest.baseline, baseline_custom);
  }
  if (auto* t = section(reader, root, "versions", "[versions.v2] command = [...]")) {
    parse_versions(reader, *t, manifest);
  }
  if (const toml::node* vary = root.get("vary")) {
    manifest.vary = detail::parse_vary(reader, *vary, baseline_custom);
  }
  if (auto* t = section(reader, root, "reduced_from", "[reduced_from] delta_ms = 72.5")) {
    manifest.reduced_from = detail::parse_reduced_from(reader, *t);
  }
  if (auto* t = section(reader, root, "bisect", "[bisect] versions = [\"v1\", \"v2\"]")) {
    manifest.bisect = detail::parse_bisect(reader, *t);
  }
}

void check_repetition_cap(TomlReader& reader, const toml::table& root, const ExperimentSettings& s,
                          const std::string& path) {
  if (s.max_repetitions >= s.repetitions) return;
  const toml::node* stats = root.get("stats");
  const toml::node* node =
      stats && stats->as_table() ? stats->as_table()->get("max_repetitions") : nullptr;
  reader.problem(node ? reader.at(*node) : SourceLocation{path, 1, 1}, "stats.max_repetitions",
                 "at least experiment.repetitions (" + std::to_string(s.repetitions) + ")",
                 std::to_string(s.max_repetitions), "raise max_repetitions or lower repetitions");
}

}  // namespace

Manifest parse_manifest(const std::string& text, const std::string& path) {
  const toml::table root = parse_root(text, path);
  detail::Diagnostics diagnostics;
  TomlReader reader(path, diagnostics);
  Manifest manifest;
  manifest.settings.manifest_path = path;
  manifest.settings.manifest_text = text;
  manifest.settings.manifest_hash = sha256_hex(text);
  manifest.settings.name = std::filesystem::path(path).stem().string();
  manifest.baseline.where = {path, 1, 1};
  manifest.baseline.ranks_where = {path, 1, 1};
  manifest.baseline.version_where = {path, 1, 1};
  check_top_level(reader, root);
  parse_sections(reader, root, manifest);
  check_repetition_cap(reader, root, manifest.settings, path);
  check_references(reader, manifest);
  diagnostics.raise_if_any();
  return manifest;
}

std::vector<ModelSetting> load_model_file(const std::string& path, const std::string& key_path) {
  const toml::table root = parse_toml(detail::read_manifest_file(path), path);
  detail::Diagnostics diagnostics;
  TomlReader reader(path, diagnostics);
  std::vector<ModelSetting> settings = detail::parse_model(reader, root, key_path);
  diagnostics.raise_if_any();
  return settings;
}

Manifest load_manifest(const std::string& path) {
  return parse_manifest(detail::read_manifest_file(path), path);
}

}  // namespace culprit::manifest