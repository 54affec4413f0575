#include "compose.hpp"

#include <stdexcept>

#include "culprit/common/sha256.hpp"
#include "culprit/manifest/model_keys.hpp"
#include "diagnostics.hpp"
#include "parse_inject.hpp"
#include "stepmodel/config.hpp"

namespace culprit::manifest::detail {
namespace {

using stepmodel::DelayInjection;

// The manifest settings that shaped one configuration's model, latest first wins, so a
// cross-key problem can point at the line that caused it.
struct ModelOrigin {
  std::map<std::string, const ModelSetting*> last;
  SourceLocation fallback;

  const ModelSetting* setting(const std::string& key) const {
    auto it = last.find(key);
    return it == last.end() ? nullptr : it->second;
  }
  SourceLocation where(const std::string& key) const {
    const ModelSetting* s = setting(key);
    return s ? s->where : fallback;
  }
  std::string path(const std::string& key) const {
    const ModelSetting* s = setting(key);
    return s ? s->path : "baseline.model." + key;
  }
};

class ConfigChecker {
 public:
  ConfigChecker(const stepmodel::RunConfig& run, const std::string& label, bool ranks_varied,
                bool custom_command, Diagnostics& diag)
      : run_(run),
        in_(" in configuration '" + label + "'"),
        ranks_varied_(ranks_varied),
        custom_command_(custom_command),
        diag_(diag) {}

  void rank(int rank, const std::string& path, const SourceLocation& where) {
    if (rank < run_.ranks) return;
    diag_.add(where, path + ".rank",
              "a rank from 0 to " + std::to_string(run_.ranks - 1) + in_ + " (" +
                  std::to_string(run_.ranks) + " rank" + (run_.ranks == 1 ? "" : "s") + ")",
              std::to_string(rank),
              ranks_varied_
                  ? "use a rank that every configuration has, or drop that ranks level"
                  : "use a rank below " + std::to_string(run_.ranks) + " or raise baseline.ranks");
  }

  void step(int step, const std::string& key, const SourceLocation& where) {
    const int total = run_.warmup_steps + run_.steps;
    if (step < total) return;
    diag_.add(where, key,
              "a step index below " + std::to_string(total) + " (warmup_steps + steps)" + in_,
              std::to_string(step), "use an earlier step or raise experiment.steps");
  }

  void delay(const DelayInjection& d, const std::string& path, const SourceLocation& where) {
    if (d.rank != stepmodel::kEveryRank) rank(d.rank, path, where);
    const bool pmpi = run_.instrument == "pmpi";
    if (stepmodel::needs_pmpi(run_.model, d.phase) != pmpi) {
      diag_.add(where, path + ".phase",
                pmpi ? "a compute phase before an MPI call (\"compute>MPI_Allreduce\") with "
                       "instrument \"pmpi\"" +
                           in_
                     : "a phase of the built-in workload" + in_,
                "\"" + d.phase + "\"",
                pmpi ? "name the MPI call the delayed compute leads to (docs/pmpi.md)"
                     : "add instrument = \"pmpi\" to the version, or use gemm.fwd, "
                       "gemm.bwd.dgrad, gemm.bwd.wgrad, allreduce or optimizer");
    }
    if (pmpi) {
      if (d.microbatch != -1) {
        diag_.add(where, path + ".microbatch", "no microbatch (-1) for a pmpi phase",
                  std::to_string(d.microbatch), "remove microbatch; layer selects the k-th call");
      }
      if (d.mode == "gpu") {
        diag_.add(where, path + ".mode", "mode \"sleep\" or \"spin\" for a pmpi phase", "\"gpu\"",
                  "use mode = \"spin\"");
      }
      if (d.step_first >= 0 && d.step_last >= 0 && d.step_first > d.step_last) {
        diag_.add(where, path + ".step_first", "step_first <= step_last",
                  std::to_string(d.step_first) + " > " + std::to_string(d.step_last),
                  "swap the two step indices");
      }
      return;
    }
    const auto& m = run_.model;
    if (!custom_command_ && m.schedule.empty() && !d.phase.empty() && !is_builtin_phase(d.phase)) {
      diag_.add(where, path + ".phase",
                "a phase of culprit-step (" + join(phase_names(), ", ") + ")" + in_,
                "\"" + d.phase + "\"",
                "region names of your own program need a version with its own command");
    }
    // A measured schedule and a custom program have their own layers and collectives; the GEMM
    // step's checks don't apply.
    const bool gemm = m.schedule.empty() && d.phase.starts_with("gemm.") && !custom_command_;
    if (gemm && d.layer >= m.layers) {
      diag_.add(where, path + ".layer",
                "a layer from 0 to " + std::to_string(m.layers - 1) + " or -1 (all)" + in_,
                std::to_string(d.layer), "use an existing layer or raise model.layers");
    }
    if (gemm && d.microbatch >= m.microbatches) {
      diag_.add(
          where, path + ".microbatch",
          "a microbatch from 0 to " + std::to_string(m.microbatches - 1) + " or -1 (all)" + in_,
          std::to_string(d.microbatch), "use an existing microbatch");
    }
    if (m.schedule.empty() && d.phase == "allreduce" && d.layer >= m.buckets && !custom_command_) {
      diag_.add(where, path + ".layer",
                "a bucket index from 0 to " + std::to_string(m.buckets - 1) +
                    " or -1 (for allreduce, layer selects the bucket)" + in_,
                std::to_string(d.layer), "use an existing bucket or raise model.buckets");
    }
    if (m.schedule.empty() && (d.phase == "allreduce" || d.phase == "optimizer") &&
        d.microbatch != -1) {
      diag_.add(where, path + ".microbatch", "no microbatch (-1) for phase " + d.phase,
                std::to_string(d.microbatch), "remove microbatch from this delay");
    }
    if (m.schedule.empty() && d.phase == "optimizer" && d.layer != -1) {
      diag_.add(where, path + ".layer", "no layer (-1) for phase optimizer",
                std::to_string(d.layer), "remove layer from this delay");
    }
    if (d.step_first >= 0) step(d.step_first, path + ".steps", where);
    if (d.step_last >= 0) step(d.step_last, path + ".steps", where);
    if (d.step_first >= 0 && d.step_last >= 0 && d.step_first > d.step_last) {
      diag_.add(where, path + ".step_first", "step_first <= step_last",
                std::to_string(d.step_first) + " > " + std::to_string(d.step_last),
                "swap the two step indices");
    }
    if (d.mode == "gpu" && run_.backend != "cuda") {
      diag_.add(where, path + ".mode", "mode \"sleep\" or \"spin\" on backend " + run_.backend,
                "\"gpu\"", "use mode = \"spin\", or backend = \"cuda\" for a GPU delay");
    }
  }

  void model(const ModelOrigin& origin) {
    const auto& m = run_.model;
    if (!m.schedule.empty() && run_.backend != "sim" &&
        (run_.backend != "cpu" || m.compute != "sleep")) {
      diag_.add(origin.where("compute"), "baseline.model.schedule",
                "backend \"sim\", or backend \"cpu\" with compute = \"sleep\", for a measured "
                "schedule" +
                    in_,
                "backend \"" + run_.backend + "\", compute \"" + m.compute + "\"",
                "set compute = \"sleep\" in [baseline.model] or backend = \"sim\"");
    }
    if (m.buckets > m.layers) {
      const std::string key = origin.setting("buckets") ? "buckets" : "layers";
      diag_.add(origin.where(key), origin.path(key), "model.buckets <= model.layers" + in_,
                "buckets = " + std::to_string(m.buckets) + ", layers = " + std::to_string(m.layers),
                "lower buckets or raise layers");
    }
    const bool dtype_ok =
        run_.backend == "sim" ||
        (run_.backend == "cpu" ? (m.dtype == "fp32" || m.dtype == "fp64") : (m.dtype != "fp64"));
    if (!dtype_ok) {
      diag_.add(origin.where("dtype"), origin.path("dtype"),
                run_.backend == "cpu" ? "\"fp32\" or \"fp64\" on backend cpu" + in_
                                      : "\"fp32\", \"fp16\" or \"bf16\" on backend cuda" + in_,
                "\"" + m.dtype + "\"", "choose a dtype the backend computes in");
    }
  }

 private:
  const stepmodel::RunConfig& run_;
  std::string in_;
  bool ranks_varied_;
  bool custom_command_;  // a version's own program: its regions, not culprit-step's model
  Diagnostics& diag_;
};

void add_injections(const InjectionSpec& spec, stepmodel::Injections& inject) {
  for (const auto& d : spec.delays) inject.delays.push_back(d.value);
  for (const auto& s : spec.slowdowns) inject.slowdowns.push_back(s.value);
  for (const auto& c : spec.clock_skews) inject.clock_skews.push_back(c.value);
  for (const auto& f : spec.faults) inject.faults.push_back(f.value);
}

void check_injections(ConfigChecker& check, const InjectionSpec& spec) {
  for (const auto& d : spec.delays) check.delay(d.value, d.path, d.where);
  for (const auto& s : spec.slowdowns) check.rank(s.value.rank, s.path, s.where);
  for (const auto& c : spec.clock_skews) check.rank(c.value.rank, c.path, c.where);
  for (const auto& f : spec.faults) {
    check.rank(f.value.rank, f.path, f.where);
    check.step(f.value.step, f.path + ".step", f.where);
  }
}

}  // namespace

std::string delay_text(const DelayInjection& d) {
  std::string text = "rank";
  text.append(std::to_string(d.rank)).append(":").append(d.phase);
  if (d.layer >= 0) text.append(":l").append(std::to_string(d.layer));
  if (d.microbatch >= 0) text.append(":mb").append(std::to_string(d.microbatch));
  if (d.step_first >= 0 || d.step_last >= 0) {
    text.append(":s");
    if (d.step_first >= 0) text.append(std::to_string(d.step_first));
    if (d.step_first != d.step_last) {
      text.append("-");
      if (d.step_last >= 0) text.append(std::to_string(d.step_last));
    }
  }
  text.append(":").append(format_number(d.ms)).append("ms");
  if (d.mode != "sleep") text.append(":").append(d.mode);
  return text;
}

// The one place {python} is replaced: by [experiment] python, else "python3" (looked up in
// PATH at launch, and checked before the first run).
std::vector<std::string> with_interpreter(std::vector<std::string> command,
                                          const std::string& python) {
  const std::string interpreter = python.empty() ? "python3" : python;
  const std::string placeholder = "{python}";
  for (std::string& word : command) {
    for (auto at = word.find(placeholder); at != std::string::npos;
         at = word.find(placeholder, at)) {
      // `{{python}}` is the literal text `{python}`: left for the launch's brace escapes.
      if (at > 0 && word[at - 1] == '{' && at + placeholder.size() < word.size() &&
          word[at + placeholder.size()] == '}') {
        at += placeholder.size();
        continue;
      }
      word.replace(at, placeholder.size(), interpreter);
      at += interpreter.size();
    }
  }
  return command;
}

namespace {

// A configuration that runs an unmodified MPI program under the PMPI interposer needs the
// program's command, the cpu backend, and injections the interposer can make.
void check_pmpi(const Manifest& manifest, const VersionSpec* version,
                const InstrumentSpec& instrument_spec, const stepmodel::RunConfig& run,
                const std::string& label, Diagnostics& diagnostics) {
  const InstrumentSpec* instrument = &instrument_spec;
  const std::string in = " in configuration '" + label + "'";
  const std::string key =
      (instrument == &manifest.baseline.instrument ? std::string("baseline")
                                                   : "versions." + version->name) +
      ".instrument";
  if (version == nullptr || version->command.empty()) {
    diagnostics.add(instrument->instrument_where, key,
                    "a version with the application's command = [...]" + in,
                    version ? "no command" : "no [versions] entry",
                    "give the version command = [\"lmp\", \"-in\", \"in.melt\"] (docs/pmpi.md)");
  }
  if (run.backend != "cpu") {
    diagnostics.add(instrument->instrument_where, key, "backend \"cpu\" (a real MPI program)" + in,
                    "backend " + run.backend, "remove backend or set backend = \"cpu\"");
  }
  if (!run.inject.slowdowns.empty() || !run.inject.faults.empty()) {
    diagnostics.add(instrument->instrument_where, key,
                    "only delays and clock_skews with instrument \"pmpi\"" + in,
                    "slowdowns or faults", "inject delays = [{ rank, phase, ms }] instead");
  }
}

// The hash covers what the workload does, not what the configuration is called.
std::string configuration_hash(const Configuration& config) {
  Json::Array command(config.command.begin(), config.command.end());
  Json::Object env(config.env.begin(), config.env.end());
  const Json workload =
      Json::parse(stepmodel::to_json(config.run, stepmodel::JsonFields::kWorkload));
  return sha256_hex(Json(Json::Object{{"resolved", workload},
                                      {"command", command},
                                      {"env", env},
                                      {"version", config.version}})
                        .dump());
}

}  // namespace

Configuration compose(const Manifest& manifest, const Selection& selection,
                      Diagnostics& diagnostics) {
  const std::size_t problems_before = diagnostics.reports();
  Configuration config;
  stepmodel::RunConfig& run = config.run;

  config.label = selection.label;
  config.factor = selection.factor;
  config.level_json = selection.level.dump();
  config.is_baseline = selection.factor.empty();
  config.version = selection.version.value_or(manifest.baseline.version);
  const VersionSpec* version = nullptr;
  if (auto it = manifest.versions.find(config.version); it != manifest.versions.end()) {
    version = &it->second;
  }

  run.experiment = manifest.settings.name;
  run.config_label = config.label;
  run.backend = config.backend = manifest.baseline.backend;
  run.ranks = config.ranks = selection.ranks ? selection.ranks->value : manifest.baseline.ranks;
  run.warmup_steps = manifest.settings.warmup_steps;
  run.steps = manifest.settings.steps;

  ModelOrigin origin;
  origin.fallback = manifest.baseline.where;
  const auto apply_all = [&](const std::vector<ModelSetting>& settings) {
    for (const auto& setting : settings) {
      apply(run.model, *find_model_key(setting.key), setting.value);
      origin.last[setting.key] = &setting;
    }
  };
  apply_all(manifest.baseline.model);
  if (version != nullptr) apply_all(version->model);
  apply_all(selection.model);
  run.model.schedule = manifest.baseline.schedule;

  add_injections(manifest.baseline.inject, run.inject);
  if (version != nullptr) add_injections(version->inject, run.inject);
  for (const auto& d : selection.delays) run.inject.delays.push_back(d.value);

  // instrument and step_rule: the version's over the baseline's.
  const InstrumentSpec* instrument = &manifest.baseline.instrument;
  if (version != nullptr && !version->instrument.instrument.empty()) {
    instrument = &version->instrument;
  }
  run.instrument = config.instrument = instrument->instrument;
  if (instrument->step_rule) run.step_rule = *instrument->step_rule;
  if (run.instrument == "pmpi") {
    check_pmpi(manifest, version, *instrument, run, config.label, diagnostics);
  }

  const bool custom_command = version != nullptr && !version->command.empty();
  ConfigChecker check(run, config.label, selection.ranks.has_value(), custom_command, diagnostics);
  check.model(origin);
  check_injections(check, manifest.baseline.inject);
  if (version != nullptr) check_injections(check, version->inject);
  for (const auto& d : selection.delays) check.delay(d.value, d.path, d.where);

  if (version != nullptr) {
    config.command = with_interpreter(version->command, manifest.settings.python);
    config.python_placeholder = config.command != version->command;
    config.env = version->env;
  }

  config.config_hash = configuration_hash(config);
  config.resolved_json = stepmodel::to_json(run, stepmodel::JsonFields::kConfiguration);

  if (diagnostics.reports() == problems_before && !custom_command) {
    // What we hand to the workload must be what its parser accepts; a mismatch is our bug. (A
    // custom program has its own parser and region names: culprit-step's is not its judge.)
    try {
      (void)stepmodel::parse_run_config(config.resolved_json);
    } catch (const std::invalid_argument& e) {
      throw std::logic_error("planner produced a configuration the workload rejects (" +
                             config.label + "): " + e.what());
    }
  }
  return config;
}

}  // namespace culprit::manifest::detail
