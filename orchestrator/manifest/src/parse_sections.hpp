#pragma once
// The readers of a manifest's sections (docs/manifest.md), one file each: parse.cpp checks the
// top level and calls them in order. Each reports its problems through the reader and goes on.

#include <toml++/toml.h>

#include <string>
#include <string_view>
#include <vector>

#include "culprit/manifest/manifest.hpp"
#include "toml_reader.hpp"

namespace culprit::manifest::detail {

// The keys of each section, for only_keys and for naming a key's home when it is written at the
// top level.
inline const std::vector<std::string> kExperimentKeys = {
    "name", "description", "repetitions", "warmup_steps", "steps", "order",
    "seed", "timeout_s",   "db",          "design",       "python"};
inline const std::vector<std::string> kStatsKeys = {"alpha", "margin", "max_repetitions",
                                                    "sampling"};
inline const std::vector<std::string> kBaselineKeys = {"version", "ranks",      "backend",  "model",
                                                       "inject",  "instrument", "step_rule"};
inline const std::vector<std::string> kLaunchKeys = {"launcher", "ranks_per_node", "binding",
                                                     "extra_args"};

// parse_settings.cpp
void parse_experiment(TomlReader& reader, const toml::table& table, ExperimentSettings& s);
void parse_stats(TomlReader& reader, const toml::table& table, ExperimentSettings& s);
void parse_launch(TomlReader& reader, const toml::table& table, LaunchSettings& s);
ReducedFrom parse_reduced_from(TomlReader& reader, const toml::table& table);

// parse_baseline.cpp
std::vector<ModelSetting> parse_model(TomlReader& reader, const toml::node& node,
                                      const std::string& path);
InstrumentSpec parse_instrument(TomlReader& reader, const toml::table& table, const std::string& p);
// Whether version `name` of the raw manifest runs its own program (a `command`): delays sent to
// it name that program's regions, not culprit-step's phases.
bool runs_custom_command(const toml::table& root, const std::string& name);
// The baseline's version as written (before validation), "" when absent.
std::string raw_baseline_version(const toml::table& root);
void parse_baseline(TomlReader& reader, const toml::table& table, BaselineSpec& baseline,
                    bool any_phase);

// parse_versions.cpp
bool valid_version_name(std::string_view name);
VersionSpec parse_version(TomlReader& reader, const std::string& name, const toml::node& node);

// parse_vary.cpp
std::vector<VarySpec> parse_vary(TomlReader& reader, const toml::node& node, bool any_phase);

// parse_bisect.cpp
BisectSpec parse_bisect(TomlReader& reader, const toml::table& table);

}  // namespace culprit::manifest::detail
