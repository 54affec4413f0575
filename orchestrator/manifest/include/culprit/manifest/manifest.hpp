#pragma once
// A validated manifest (docs/manifest.md): what the user asked for, with the place in the file
// each setting came from, so that checks made later (per configuration) can still name the
// file, line and column. load_manifest() validates the file; the checks of each configuration
// the manifest expands to (a delay's rank against a ranks level, ...) are make_plan's, which
// reports them the same way (planner.hpp).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "culprit/manifest/plan.hpp"
#include "stepmodel/config.hpp"

namespace culprit::manifest {

struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  bool operator==(const SourceLocation&) const = default;
};

// One value of a [*.model] key; the key's type decides the alternative.
using ModelValue = std::variant<std::int64_t, double, bool, std::string>;

struct ModelSetting {
  std::string key;  // a stepmodel::ModelConfig field name, e.g. "hidden"
  ModelValue value;
  std::string path;  // the full manifest key, e.g. "versions.v2.model.compute_scale"
  SourceLocation where;

  bool operator==(const ModelSetting&) const = default;
};

template <typename T>
struct Located {
  T value;
  std::string path;  // e.g. "baseline.inject.delays[0]"
  SourceLocation where;

  bool operator==(const Located&) const = default;
};

struct InjectionSpec {
  std::vector<Located<stepmodel::DelayInjection>> delays;
  std::vector<Located<stepmodel::SlowdownInjection>> slowdowns;
  std::vector<Located<stepmodel::ClockSkewInjection>> clock_skews;
  std::vector<Located<stepmodel::FaultInjection>> faults;

  bool operator==(const InjectionSpec&) const = default;
};

// instrument = "pmpi" and step_rule on [versions.X] / [baseline] (docs/pmpi.md).
struct InstrumentSpec {
  std::string instrument;  // "" | "pmpi"
  std::optional<stepmodel::StepRule> step_rule;
  SourceLocation instrument_where;
  SourceLocation step_rule_where;

  bool operator==(const InstrumentSpec&) const = default;
};

struct VersionSpec {
  std::string name;
  std::vector<std::string> command;  // empty: the built-in workload
  std::map<std::string, std::string> env;
  std::vector<ModelSetting> model;  // overrides of [baseline.model]
  InjectionSpec inject;             // added to the baseline's injections
  InstrumentSpec instrument;        // over the baseline's
  std::string description;
  SourceLocation where;

  bool operator==(const VersionSpec&) const = default;
};

struct BaselineSpec {
  std::string version;  // "" = the built-in workload, no [versions] entry
  int ranks = 2;
  std::string backend = "cpu";
  std::vector<ModelSetting> model;  // explicit [baseline.model] keys over ModelConfig defaults
  std::vector<stepmodel::SchedulePhase> schedule;  // [baseline.model] schedule: a measured step
  SourceLocation schedule_where;
  InjectionSpec inject;
  InstrumentSpec instrument;
  SourceLocation where;  // the [baseline] table (or the file start when absent)
  SourceLocation ranks_where;
  SourceLocation version_where;

  bool operator==(const BaselineSpec&) const = default;
};

struct VaryLevel {
  std::string version;              // factor "version"
  int ranks = 0;                    // factor "ranks"
  stepmodel::DelayInjection delay;  // factor "delay"
  ModelValue model_value;           // factor "model.<key>"
  std::string path;                 // "vary[0].levels[2]"
  SourceLocation where;

  bool operator==(const VaryLevel&) const = default;
};

struct VarySpec {
  std::string factor;     // "version" | "ranks" | "delay" | "model.<key>"
  std::string model_key;  // for "model.<key>"
  std::vector<VaryLevel> levels;
  SourceLocation where;

  bool operator==(const VarySpec&) const = default;
};

struct GitBisectSpec {
  std::string repo;
  std::string good;
  std::string bad;
  std::vector<std::string> build;    // argv run in each commit's worktree; empty: no build step
  std::vector<std::string> command;  // argv of the workload built there; empty: the built-in
  // A TOML file of [baseline.model] overrides (model keys at its top level) that the build
  // writes, relative to the commit's worktree, read by load_model_file; empty: none
  // (docs/manifest.md, [bisect]).
  std::string model_file;

  bool operator==(const GitBisectSpec&) const = default;
};

struct BisectSpec {
  std::vector<std::string> versions;  // ordered, first good .. last bad
  std::optional<GitBisectSpec> git;
  SourceLocation where;

  bool operator==(const BisectSpec&) const = default;
};

struct Manifest {
  ExperimentSettings settings;
  std::optional<ReducedFrom> reduced_from;
  BaselineSpec baseline;
  std::map<std::string, VersionSpec> versions;
  std::vector<VarySpec> vary;
  std::optional<BisectSpec> bisect;

  bool operator==(const Manifest&) const = default;
};

// Reads and validates a manifest file. Throws culprit::UsageError whose message is one line per
// problem: "FILE:LINE:COL: key 'x.y': expected ..., got ...; <what to do>".
Manifest load_manifest(const std::string& path);

// The same from text already in memory; `path` names it in messages.
Manifest parse_manifest(const std::string& text, const std::string& path);

// A TOML file of model keys at its top level (`compute_scale = 1.15`), read with the rules of
// [versions.NAME.model]; problems name `key_path`.KEY. Throws culprit::UsageError like
// load_manifest (e.g. bisect's model_file, which a commit's build writes).
std::vector<ModelSetting> load_model_file(const std::string& path, const std::string& key_path);

}  // namespace culprit::manifest
