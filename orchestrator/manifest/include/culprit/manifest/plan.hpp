#pragma once
// A Plan is what a validated manifest expands to: the configurations (baseline + one factor
// varied at a time, or a factorial cross when asked) and every run in execution order.
// The launcher executes PlannedRuns; the store records configurations by `config_hash`.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "culprit/common/reduced_from.hpp"
#include "stepmodel/config.hpp"

namespace culprit::manifest {

// [launch]: how runs are started (docs/manifest.md). Empty strings mean "not set here": the
// command line (--launcher), then CULPRIT_LAUNCHER / CULPRIT_BIND, then the defaults decide.
// Not part of any configuration's hash: the same sweep under mpirun and srun compares.
struct LaunchSettings {
  std::string launcher;                 // "" | auto | mpirun | srun | torchrun
  int ranks_per_node = 0;               // 0: the launcher's default placement
  std::string binding;                  // "" | none | core | socket | hwthread
  std::vector<std::string> extra_args;  // passed to the launcher before the workload

  bool operator==(const LaunchSettings&) const = default;
};

struct ExperimentSettings {
  std::string name;
  std::string manifest_path;
  std::string manifest_text;  // verbatim, stored with the experiment
  std::string manifest_hash;  // hex SHA-256 (or other stable digest) of manifest_text
  std::string db;             // experiment.db, may be empty
  int repetitions = 5;
  int max_repetitions = 20;
  // [stats] sampling: "fixed" (`run` makes `repetitions` runs per configuration) or "adaptive"
  // (after them, `run` adds blocks of `repetitions` runs to a candidate and the baseline while
  // their comparison is inconclusive, up to max_repetitions; bisect::decide_sweep).
  std::string sampling = "fixed";
  int warmup_steps = 2;
  int steps = 20;
  std::uint64_t seed = 1;
  double timeout_s = 600;
  std::string order = "interleaved";  // interleaved | sequential
  std::string design = "one-factor-at-a-time";
  double alpha = 0.05;
  double margin = 0.02;
  // [experiment] python: the interpreter that the placeholder {python} in a version's command
  // stands for (e.g. "/usr/bin/python3"); "" means "python3", looked up in PATH.
  std::string python;
  LaunchSettings launch;

  bool operator==(const ExperimentSettings&) const = default;
};

// [reduced_from] (common/reduced_from.hpp): one type with the settings the store keeps.
using culprit::ReducedFrom;

struct Configuration {
  std::string label;       // "baseline", "version=v2", "ranks=4", "delay=rank1:gemm.fwd:l1:40ms"
  std::string factor;      // "" for the baseline; "version" | "ranks" | "delay" | "model.<key>"
  std::string level_json;  // the level as JSON ("null" for the baseline)
  bool is_baseline = false;
  std::string version;  // name of the [versions.NAME] used, "" for the default workload
  std::string backend;  // cpu | cuda | sim
  int ranks = 1;
  // argv of the workload; empty = the built-in culprit-step (or culprit-sim for backend sim).
  // May contain the placeholders {config} and {out}; {python} is already replaced by the
  // interpreter ([experiment] python).
  std::vector<std::string> command;
  bool python_placeholder = false;  // the version's command said {python} (for messages)
  std::map<std::string, std::string> env;
  std::string instrument;  // "pmpi": the launcher preloads libculprit_pmpi.so (docs/pmpi.md)
  // The resolved configuration (docs/schema.md) its runs receive, repetition and seed aside.
  stepmodel::RunConfig run;
  // stepmodel::to_json(run, kConfiguration): the text the store keeps with the configuration.
  std::string resolved_json;
  // hex SHA-256 of to_json(run, kWorkload) + command + env + version (the label aside)
  std::string config_hash;
  // Cost model (docs/manifest.md "Estimated cost"): predicted step time and wall time per run.
  double predicted_step_ms = 0;  // NaN for a custom command: unknown
  double estimated_run_s = 0;
};

struct PlannedRun {
  int config_index = 0;    // into Plan::configs
  int repetition = 0;      // 0-based, per configuration
  int position = 0;        // 0-based position in execution order
  std::uint64_t seed = 0;  // per-run seed, derived deterministically from experiment.seed
};

struct Plan {
  ExperimentSettings settings;
  std::optional<ReducedFrom> reduced_from;  // the manifest's, stored with the experiment
  std::vector<Configuration> configs;       // configs[0] is the baseline
  std::vector<PlannedRun> runs;             // in execution order
  std::vector<std::string> warnings;
  double estimated_seconds = 0;  // of the runs culprit can estimate (its own workloads)
  int unestimated_runs = 0;      // runs of custom commands: their cost is unknown
};

// The resolved configuration file of one run: its configuration's `run` with the run's repetition
// and seed (stepmodel::to_json).
std::string run_config_json(const Plan& plan, const PlannedRun& run);

}  // namespace culprit::manifest
