// [baseline] and the [*.model] / instrument keys it shares with [versions.NAME].
#include "parse_inject.hpp"
#include "parse_schedule.hpp"
#include "parse_sections.hpp"
#include "stepmodel/pmpi_calls.hpp"

namespace culprit::manifest::detail {

std::vector<ModelSetting> parse_model(TomlReader& reader, const toml::node& node,
                                      const std::string& path) {
  std::vector<ModelSetting> settings;
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    reader.problem(reader.at(node), path, "a table of model keys", describe(node),
                   "write [" + path + "] with keys such as hidden = 256");
    return settings;
  }
  std::vector<std::string> allowed = model_key_names();
  if (path == "baseline.model") allowed.emplace_back("schedule");  // one step shape per manifest
  reader.only_keys(*table, path, allowed);
  for (const auto& [key, value] : *table) {
    const ModelKey* model_key = find_model_key(key.str());
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
      baseline.schedule = parse_schedule(reader, *schedule, "baseline.model.schedule");
      baseline.schedule_where = reader.at(*schedule);
      stepmodel::ModelConfig measured;
      measured.schedule = baseline.schedule;
      reader.set_delay_phases(stepmodel::delay_phase_names(measured));
    }
  }
  if (const toml::node* inject = table.get("inject")) {
    baseline.inject = parse_inject(reader, *inject, "baseline.inject", any_phase);
  }
  baseline.instrument = parse_instrument(reader, table, p);
}

}  // namespace culprit::manifest::detail
