// [experiment], [stats], [launch] and [reduced_from]: the experiment's settings, how its runs
// start, and where a reduced experiment came from.
#include <limits>

#include "parse_sections.hpp"

namespace culprit::manifest::detail {

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

}  // namespace culprit::manifest::detail
