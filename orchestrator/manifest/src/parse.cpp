// TOML text -> Manifest. Every section is read by one function; each problem is reported with
// its location and reading goes on, so the user sees all mistakes at once.

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <set>
#include <tuple>

#include "culprit/common/placeholders.hpp"
#include "culprit/common/sha256.hpp"
#include "culprit/errors.hpp"
#include "culprit/manifest/manifest.hpp"
#include "parse_inject.hpp"
#include "parse_schedule.hpp"
#include "source_text.hpp"
#include "stepmodel/pmpi_calls.hpp"
#include "toml_reader.hpp"

namespace culprit::manifest {
namespace {

using detail::child_path;
using detail::describe;
using detail::item_path;
using detail::TomlReader;

const std::vector<std::string> kSections = {"experiment", "stats",  "baseline",     "versions",
                                            "vary",       "bisect", "reduced_from", "launch"};
const std::vector<std::string> kExperimentKeys = {
    "name", "description", "repetitions", "warmup_steps", "steps", "order",
    "seed", "timeout_s",   "db",          "design",       "python"};
const std::vector<std::string> kStatsKeys = {"alpha", "margin", "max_repetitions", "sampling"};
const std::vector<std::string> kBaselineKeys = {"version", "ranks",      "backend",  "model",
                                                "inject",  "instrument", "step_rule"};
const std::vector<std::string> kLaunchKeys = {"launcher", "ranks_per_node", "binding",
                                              "extra_args"};

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

std::vector<ModelSetting> parse_model(TomlReader& reader, const toml::node& node,
                                      const std::string& path) {
  std::vector<ModelSetting> settings;
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    reader.problem(reader.at(node), path, "a table of model keys", describe(node),
                   "write [" + path + "] with keys such as hidden = 256");
    return settings;
  }
  std::vector<std::string> allowed = detail::model_key_names();
  if (path == "baseline.model") allowed.emplace_back("schedule");  // one step shape per manifest
  reader.only_keys(*table, path, allowed);
  for (const auto& [key, value] : *table) {
    const detail::ModelKey* model_key = detail::find_model_key(key.str());
    if (model_key == nullptr) continue;
    const std::string key_path = child_path(path, key.str());
    if (auto parsed = reader.model_value(value, *model_key, key_path)) {
      settings.push_back({std::string(key.str()), *parsed, key_path, reader.at(value)});
    }
  }
  return settings;
}

// instrument = "pmpi"; step_rule = "pcontrol" | { call = "MPI_Allreduce", every = k }.
InstrumentSpec parse_instrument(TomlReader& reader, const toml::table& table,
                                const std::string& p) {
  InstrumentSpec spec;
  if (const toml::node* node = table.get("instrument")) {
    spec.instrument_where = reader.at(*node);
    if (auto value =
            reader.text(*node, child_path(p, "instrument"), {"pmpi"}, "instrument = \"pmpi\"")) {
      spec.instrument = *value;
    }
  }
  const toml::node* node = table.get("step_rule");
  if (node == nullptr) return spec;
  const std::string path = child_path(p, "step_rule");
  const std::string example =
      "step_rule = \"pcontrol\" or step_rule = { call = \"MPI_Allreduce\", every = 1 }";
  spec.step_rule_where = reader.at(*node);
  if (node->is_string()) {
    if (reader.text(*node, path, {"pcontrol"}, example)) spec.step_rule = stepmodel::StepRule{};
  } else if (const toml::table* rule = node->as_table()) {
    reader.only_keys(*rule, path, {"call", "every"});
    stepmodel::StepRule parsed;
    std::vector<std::string> calls;
    for (auto name : stepmodel::kPmpiCollectives) calls.emplace_back(name);
    if (const toml::node* call = reader.required(*rule, "call", path, "a blocking collective",
                                                 "call = \"MPI_Allreduce\"")) {
      if (auto value =
              reader.text(*call, child_path(path, "call"), calls, "call = \"MPI_Allreduce\"")) {
        parsed.call = *value;
      }
    }
    reader.read(*rule, "every", path, parsed.every, 1, 1'000'000, "every = 1");
    spec.step_rule = parsed;
  } else {
    reader.problem(reader.at(*node), path, "\"pcontrol\" or a table { call, every }",
                   describe(*node), "write " + example);
  }
  if (spec.instrument.empty()) {
    reader.problem(spec.step_rule_where, path, "instrument = \"pmpi\" beside step_rule",
                   "no instrument", "add instrument = \"pmpi\" to [" + p + "]");
  }
  return spec;
}

void parse_experiment(TomlReader& reader, const toml::table& table, ExperimentSettings& s) {
  const std::string p = "experiment";
  reader.only_keys(table, p, kExperimentKeys);
  reader.read(table, "name", p, s.name, {}, "name = \"straggler-sweep\"");
  std::string description;
  reader.read(table, "description", p, description, {}, "description = \"...\"");
  reader.read(table, "repetitions", p, s.repetitions, 1, 10000, "repetitions = 6");
  reader.read(table, "warmup_steps", p, s.warmup_steps, 0, 100000, "warmup_steps = 2");
  reader.read(table, "steps", p, s.steps, 1, 1000000, "steps = 20");
  reader.read(table, "order", p, s.order, {"interleaved", "sequential"}, "order = \"interleaved\"");
  if (const toml::node* seed = table.get("seed")) {
    if (auto value = reader.integer(*seed, "experiment.seed", 0,
                                    std::numeric_limits<std::int64_t>::max(), "seed = 12345")) {
      s.seed = static_cast<std::uint64_t>(*value);
    }
  }
  if (const toml::node* timeout = table.get("timeout_s")) {
    if (auto value = reader.number(*timeout, "experiment.timeout_s", 0, true, 1e7, false,
                                   "timeout_s = 600")) {
      s.timeout_s = *value;
    }
  }
  reader.read(table, "db", p, s.db, {}, "db = \"results.db\"");
  reader.read(table, "design", p, s.design, {"one-factor-at-a-time", "factorial"},
              "design = \"factorial\"");
  reader.read(table, "python", p, s.python, {}, "python = \"/usr/bin/python3\"");
}

void parse_stats(TomlReader& reader, const toml::table& table, ExperimentSettings& s) {
  const std::string p = "stats";
  reader.only_keys(table, p, kStatsKeys);
  if (const toml::node* alpha = table.get("alpha")) {
    if (auto v = reader.number(*alpha, "stats.alpha", 0, true, 1, true, "alpha = 0.05")) {
      s.alpha = *v;
    }
  }
  if (const toml::node* margin = table.get("margin")) {
    if (auto v = reader.number(*margin, "stats.margin", 0, false, 10, false, "margin = 0.02")) {
      s.margin = *v;
    }
  }
  reader.read(table, "max_repetitions", p, s.max_repetitions, 1, 10000, "max_repetitions = 20");
  reader.read(table, "sampling", p, s.sampling, {"fixed", "adaptive"}, "sampling = \"adaptive\"");
}

ReducedFrom parse_reduced_from(TomlReader& reader, const toml::table& table) {
  const std::string p = "reduced_from";
  reader.only_keys(table, p,
                   {"baseline_run", "candidate_run", "baseline_median_ms", "candidate_median_ms",
                    "delta_ms", "shift_ms", "shift_runs", "db", "excess_steps", "step_excess_ms"});
  ReducedFrom from;
  for (auto [key, target] : {std::pair{"baseline_run", &from.baseline_run},
                             std::pair{"candidate_run", &from.candidate_run}}) {
    if (const toml::node* node = reader.required(table, key, p, "a run id", "baseline_run = 1")) {
      if (auto v = reader.integer(*node, child_path(p, key), 1,
                                  std::numeric_limits<std::int64_t>::max(), "baseline_run = 1")) {
        *target = *v;
      }
    }
  }
  for (auto [key, target] : {std::pair{"baseline_median_ms", &from.baseline_median_ms},
                             std::pair{"candidate_median_ms", &from.candidate_median_ms},
                             std::pair{"delta_ms", &from.delta_ms}}) {
    if (const toml::node* node =
            reader.required(table, key, p, "milliseconds", "delta_ms = 72.5")) {
      if (auto v = reader.number(*node, child_path(p, key), -1e9, false, 1e9, false,
                                 "delta_ms = 72.5")) {
        *target = *v;
      }
    }
  }
  if (const toml::node* shift = table.get("shift_ms")) {
    from.shift_ms = reader.number(*shift, child_path(p, "shift_ms"), -1e9, false, 1e9, false,
                                  "shift_ms = 73.9");
  }
  if (const toml::node* runs = table.get("shift_runs")) {
    const toml::array* pair = runs->as_array();
    if (pair == nullptr || pair->size() != 2) {
      reader.problem(reader.at(*runs), child_path(p, "shift_runs"),
                     "[baseline runs, candidate runs]", describe(*runs),
                     "write shift_runs = [6, 6]");
    } else {
      for (std::size_t i = 0; i < 2; ++i) {
        if (auto n = reader.integer(*pair->get(i), item_path(child_path(p, "shift_runs"), i), 1,
                                    1'000'000, "shift_runs = [6, 6]")) {
          from.shift_runs.push_back(static_cast<int>(*n));
        }
      }
    }
  }
  if (const toml::node* steps = table.get("excess_steps")) {
    const toml::array* list = steps->as_array();
    if (list == nullptr || list->empty()) {
      reader.problem(reader.at(*steps), child_path(p, "excess_steps"), "step positions",
                     describe(*steps), "write excess_steps = [3]");
    } else {
      for (std::size_t i = 0; i < list->size(); ++i) {
        if (auto n = reader.integer(*list->get(i), item_path(child_path(p, "excess_steps"), i), 0,
                                    1'000'000, "excess_steps = [3]")) {
          from.excess_steps.push_back(static_cast<int>(*n));
        }
      }
    }
  }
  if (const toml::node* excess = table.get("step_excess_ms")) {
    from.step_excess_ms = reader.number(*excess, child_path(p, "step_excess_ms"), -1e9, false, 1e9,
                                        false, "step_excess_ms = 29.4");
  }
  reader.read(table, "db", p, from.db, {}, "db = \"results.db\"");
  return from;
}

// Whether version `name` of the raw manifest runs its own program (a `command`): delays sent to
// it name that program's regions, not culprit-step's phases.
bool runs_custom_command(const toml::table& root, const std::string& name) {
  const toml::node* versions = root.get("versions");
  const toml::table* table = versions ? versions->as_table() : nullptr;
  const toml::node* version = table ? table->get(name) : nullptr;
  const toml::table* spec = version ? version->as_table() : nullptr;
  return spec != nullptr && spec->contains("command");
}

// The baseline's version as written (before validation), "" when absent.
std::string raw_baseline_version(const toml::table& root) {
  const toml::node* baseline = root.get("baseline");
  const toml::table* table = baseline ? baseline->as_table() : nullptr;
  const toml::node* version = table ? table->get("version") : nullptr;
  const auto name = version ? version->value_exact<std::string>() : std::nullopt;
  return name.value_or("");
}

void parse_launch(TomlReader& reader, const toml::table& table, LaunchSettings& s) {
  const std::string p = "launch";
  reader.only_keys(table, p, kLaunchKeys);
  reader.read(table, "launcher", p, s.launcher, {"auto", "mpirun", "srun", "torchrun"},
              "launcher = \"auto\"");
  reader.read(table, "ranks_per_node", p, s.ranks_per_node, 1, 1'000'000, "ranks_per_node = 8");
  reader.read(table, "binding", p, s.binding, {"none", "core", "socket", "hwthread"},
              "binding = \"core\"");
  if (const toml::node* node = table.get("extra_args")) {
    const std::string path = child_path(p, "extra_args");
    const std::string example = "extra_args = [\"--mca\", \"btl\", \"self,vader\"]";
    const toml::array* items = node->as_array();
    if (items == nullptr) {
      reader.problem(reader.at(*node), path, "an array of launcher arguments (no shell is used)",
                     describe(*node),
                     node->is_string() ? "split it into words, e.g. " + example
                                       : "write for example " + example);
      return;
    }
    for (std::size_t i = 0; i < items->size(); ++i) {
      const toml::node& item = *items->get(i);
      const auto word = item.value_exact<std::string>();
      if (!word || word->empty()) {
        reader.problem(reader.at(item), item_path(path, i), "a non-empty string", describe(item),
                       "quote every argument, e.g. " + example);
        continue;
      }
      s.extra_args.push_back(*word);
    }
  }
}

void parse_baseline(TomlReader& reader, const toml::table& table, BaselineSpec& baseline,
                    bool any_phase) {
  const std::string p = "baseline";
  baseline.where = reader.at(table);
  reader.only_keys(table, p, kBaselineKeys);
  reader.read(table, "version", p, baseline.version, {}, "version = \"v1\"");
  reader.read(table, "ranks", p, baseline.ranks, 1, 1'000'000, "ranks = 2");
  if (const toml::node* ranks = table.get("ranks")) baseline.ranks_where = reader.at(*ranks);
  if (const toml::node* version = table.get("version")) {
    baseline.version_where = reader.at(*version);
  }
  reader.read(table, "backend", p, baseline.backend, {"cpu", "cuda", "sim"}, "backend = \"cpu\"");
  if (const toml::node* model = table.get("model")) {
    baseline.model = parse_model(reader, *model, "baseline.model");
    const toml::node* schedule = model->is_table() ? model->as_table()->get("schedule") : nullptr;
    if (schedule != nullptr) {
      baseline.schedule = detail::parse_schedule(reader, *schedule, "baseline.model.schedule");
      baseline.schedule_where = reader.at(*schedule);
      stepmodel::ModelConfig measured;
      measured.schedule = baseline.schedule;
      reader.set_delay_phases(stepmodel::delay_phase_names(measured));
    }
  }
  if (const toml::node* inject = table.get("inject")) {
    baseline.inject = detail::parse_inject(reader, *inject, "baseline.inject", any_phase);
  }
  baseline.instrument = parse_instrument(reader, table, p);
}

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
        detail::parse_inject(reader, *inject, child_path(p, "inject"), !version.command.empty());
  }
  return version;
}

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
    if (auto delay = detail::parse_delay(reader, node, path, any_phase)) level.delay = delay->value;
  } else if (const detail::ModelKey* key = detail::find_model_key(vary.model_key)) {
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
  for (const auto& key : detail::model_key_names()) factors.push_back("model." + key);
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

}  // namespace

Manifest parse_manifest(const std::string& text, const std::string& path) {
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
  const toml::table root = parse_toml(text, path);
  if (root.empty()) {
    throw UsageError(
        detail::format_problem({path, 1, 1}, "", "a TOML manifest", "only comments", empty_todo));
  }

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

  for (const auto& [key, node] : root) {
    const std::string name(key.str());
    if (std::find(kSections.begin(), kSections.end(), name) != kSections.end()) continue;
    const std::string home = home_section(name);
    reader.problem(
        reader.at(key), name, "a section (" + detail::join(kSections, ", ") + ")", "an unknown key",
        home.empty() ? detail::suggest(name, kSections) : "move it under [" + home + "]");
  }
  if (auto* t = section(reader, root, "experiment", "[experiment] name = \"x\"")) {
    parse_experiment(reader, *t, manifest.settings);
  }
  if (auto* t = section(reader, root, "stats", "[stats] alpha = 0.05")) {
    parse_stats(reader, *t, manifest.settings);
  }
  // Delays of the baseline and of [[vary]] levels run in the baseline's version: a custom
  // program there accepts its own region names as phases (compose checks the rest).
  const bool baseline_custom = runs_custom_command(root, raw_baseline_version(root));
  if (auto* t = section(reader, root, "launch", "[launch] launcher = \"auto\"")) {
    parse_launch(reader, *t, manifest.settings.launch);
  }
  if (auto* t = section(reader, root, "baseline", "[baseline] ranks = 2")) {
    parse_baseline(reader, *t, manifest.baseline, baseline_custom);
  }
  if (auto* t = section(reader, root, "versions", "[versions.v2] command = [...]")) {
    for (const auto& [key, node] : *t) {
      const std::string name(key.str());
      if (!valid_version_name(name)) {
        reader.problem(reader.at(key), "versions." + name,
                       "a version name of letters, digits, '.', '_', '-', '+'", "\"" + name + "\"",
                       "rename the version, e.g. [versions.v2]");
        continue;
      }
      manifest.versions[name] = parse_version(reader, name, node);
    }
  }
  if (const toml::node* vary = root.get("vary")) {
    manifest.vary = parse_vary(reader, *vary, baseline_custom);
  }
  if (auto* t = section(reader, root, "reduced_from", "[reduced_from] delta_ms = 72.5")) {
    manifest.reduced_from = parse_reduced_from(reader, *t);
  }
  if (auto* t = section(reader, root, "bisect", "[bisect] versions = [\"v1\", \"v2\"]")) {
    manifest.bisect = parse_bisect(reader, *t);
  }
  if (manifest.settings.max_repetitions < manifest.settings.repetitions) {
    const toml::node* stats = root.get("stats");
    const toml::node* node =
        stats && stats->as_table() ? stats->as_table()->get("max_repetitions") : nullptr;
    reader.problem(
        node ? reader.at(*node) : SourceLocation{path, 1, 1}, "stats.max_repetitions",
        "at least experiment.repetitions (" + std::to_string(manifest.settings.repetitions) + ")",
        std::to_string(manifest.settings.max_repetitions),
        "raise max_repetitions or lower repetitions");
  }
  check_references(reader, manifest);
  diagnostics.raise_if_any();
  return manifest;
}

std::vector<ModelSetting> load_model_file(const std::string& path, const std::string& key_path) {
  const toml::table root = parse_toml(detail::read_manifest_file(path), path);
  detail::Diagnostics diagnostics;
  TomlReader reader(path, diagnostics);
  std::vector<ModelSetting> settings = parse_model(reader, root, key_path);
  diagnostics.raise_if_any();
  return settings;
}

Manifest load_manifest(const std::string& path) {
  return parse_manifest(detail::read_manifest_file(path), path);
}

std::optional<ReducedFrom> reduced_from_text(const std::string& text) {
  if (text.find("[reduced_from]") == std::string::npos) return std::nullopt;
  try {
    return parse_manifest(text, "stored manifest").reduced_from;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace culprit::manifest
