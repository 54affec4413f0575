// Manifest -> TOML (write.hpp): one function per section, in the order a reader expects them.
#include "culprit/manifest/write.hpp"

#include <algorithm>

#include "write_values.hpp"

namespace culprit::manifest {
namespace {

using detail::toml_key;
using detail::toml_number;
using detail::toml_string;
using detail::toml_value;

// Writes the comments and lines of one section, each key under its path.
class SectionWriter {
 public:
  SectionWriter(const ManifestLayout& comments, std::string& out)
      : comments_(comments), out_(out) {}

  // `line` is "key = value" (no newline); its path is prefix.key.
  void key(const std::string& path, const std::string& line) {
    above(path, "");
    out_ += line;
    if (auto it = comments_.after.find(path); it != comments_.after.end()) {
      out_ += "  # " + safe(it->second);
    }
    out_ += "\n";
  }
  void above(const std::string& path, const std::string& indent) {
    if (auto it = comments_.before.find(path); it != comments_.before.end()) {
      for (const auto& line : it->second) out_ += indent + "# " + safe(line) + "\n";
    }
  }
  void table(const std::string& header) { out_ += "\n" + header + "\n"; }
  const ManifestLayout& comments() const { return comments_; }
  std::string& out() { return out_; }

  // Comments are one line each: a text with a newline must not end the comment early.
  static std::string safe(const std::string& text) {
    std::string out;
    for (unsigned char c : text) out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
    return out;
  }

 private:
  const ManifestLayout& comments_;
  std::string& out_;
};

void write_experiment(SectionWriter& w, const ExperimentSettings& s) {
  const ExperimentSettings defaults;
  w.table("[experiment]");
  w.key("experiment.name", "name = " + toml_string(s.name));
  w.key("experiment.repetitions", "repetitions = " + std::to_string(s.repetitions));
  w.key("experiment.warmup_steps", "warmup_steps = " + std::to_string(s.warmup_steps));
  w.key("experiment.steps", "steps = " + std::to_string(s.steps));
  w.key("experiment.seed", "seed = " + std::to_string(s.seed));
  w.key("experiment.order", "order = " + toml_string(s.order));
  if (s.timeout_s != defaults.timeout_s) {
    w.key("experiment.timeout_s", "timeout_s = " + toml_number(s.timeout_s));
  }
  if (!s.db.empty()) w.key("experiment.db", "db = " + toml_string(s.db));
  if (s.design != defaults.design) w.key("experiment.design", "design = " + toml_string(s.design));
  if (!s.python.empty()) w.key("experiment.python", "python = " + toml_string(s.python));
  w.table("[stats]");
  w.key("stats.alpha", "alpha = " + toml_number(s.alpha));
  w.key("stats.margin", "margin = " + toml_number(s.margin));
  w.key("stats.max_repetitions", "max_repetitions = " + std::to_string(s.max_repetitions));
  if (s.sampling != defaults.sampling) {
    w.key("stats.sampling", "sampling = " + toml_string(s.sampling));
  }
}

void write_launch(SectionWriter& w, const LaunchSettings& l) {
  if (l.launcher.empty() && l.ranks_per_node == 0 && l.binding.empty() && l.extra_args.empty()) {
    return;
  }
  w.table("[launch]");
  if (!l.launcher.empty()) w.key("launch.launcher", "launcher = " + toml_string(l.launcher));
  if (l.ranks_per_node > 0) {
    w.key("launch.ranks_per_node", "ranks_per_node = " + std::to_string(l.ranks_per_node));
  }
  if (!l.binding.empty()) w.key("launch.binding", "binding = " + toml_string(l.binding));
  if (!l.extra_args.empty()) {
    w.key("launch.extra_args", "extra_args = " + detail::toml_string_array(l.extra_args));
  }
}

void write_reduced_from(SectionWriter& w, const ReducedFrom& r) {
  const auto p = [](const char* key) { return std::string("reduced_from.") + key; };
  w.table("[reduced_from]");
  w.key(p("baseline_run"), "baseline_run = " + std::to_string(r.baseline_run));
  w.key(p("candidate_run"), "candidate_run = " + std::to_string(r.candidate_run));
  w.key(p("baseline_median_ms"), "baseline_median_ms = " + toml_number(r.baseline_median_ms));
  w.key(p("candidate_median_ms"), "candidate_median_ms = " + toml_number(r.candidate_median_ms));
  w.key(p("delta_ms"), "delta_ms = " + toml_number(r.delta_ms));
  if (!r.db.empty()) w.key(p("db"), "db = " + toml_string(r.db));
  if (!r.excess_steps.empty()) {
    std::string steps;
    for (int s : r.excess_steps) steps += (steps.empty() ? "" : ", ") + std::to_string(s);
    w.key(p("excess_steps"), "excess_steps = [" + steps + "]");
  }
  if (r.step_excess_ms) {
    w.key(p("step_excess_ms"), "step_excess_ms = " + toml_number(*r.step_excess_ms));
  }
  if (r.shift_ms) w.key(p("shift_ms"), "shift_ms = " + toml_number(*r.shift_ms));
  if (!r.shift_runs.empty()) {
    std::string runs;
    for (int n : r.shift_runs) runs += (runs.empty() ? "" : ", ") + std::to_string(n);
    w.key(p("shift_runs"), "shift_runs = [" + runs + "]");
  }
}

void write_model_table(SectionWriter& w, const BaselineSpec& b) {
  if (b.model.empty() && b.schedule.empty()) return;
  w.table("[baseline.model]");
  for (const ModelSetting& m : b.model) {
    w.key("baseline.model." + m.key, toml_key(m.key) + " = " + toml_value(m.value));
  }
  if (b.schedule.empty()) return;
  std::string& out = w.out();
  out += "schedule = [\n";
  for (std::size_t i = 0; i < b.schedule.size(); ++i) {
    const std::string path = "baseline.model.schedule[" + std::to_string(i) + "]";
    w.above(path, "  ");
    out += "  " + detail::schedule_entry(b.schedule[i]) + ",";
    if (auto it = w.comments().after.find(path); it != w.comments().after.end()) {
      out += "  # " + SectionWriter::safe(it->second);
    }
    out += "\n";
  }
  out += "]\n";
}

void write_baseline(SectionWriter& w, const BaselineSpec& b) {
  w.table("[baseline]");
  if (!b.version.empty()) w.key("baseline.version", "version = " + toml_string(b.version));
  w.key("baseline.ranks", "ranks = " + std::to_string(b.ranks));
  w.key("baseline.backend", "backend = " + toml_string(b.backend));
  w.out() += detail::instrument_lines(b.instrument);
  if (const std::string inject = detail::inject_line(b.inject); !inject.empty()) {
    w.above("baseline.inject", "");
    w.out() += inject;
  }
  write_model_table(w, b);
}

void write_version(SectionWriter& w, const VersionSpec& v) {
  const std::string p = "versions." + v.name;
  w.table("[versions." + toml_string(v.name) + "]");
  if (!v.description.empty()) {
    w.key(p + ".description", "description = " + toml_string(v.description));
  }
  if (!v.command.empty()) {
    w.key(p + ".command", "command = " + detail::toml_string_array(v.command));
  }
  if (!v.env.empty()) {
    std::string env;
    for (const auto& [name, value] : v.env) {
      env += (env.empty() ? "" : ", ") + toml_key(name) + " = " + toml_string(value);
    }
    w.key(p + ".env", "env = { " + env + " }");
  }
  if (!v.model.empty()) {
    std::string model;
    for (const ModelSetting& m : v.model) {
      model += (model.empty() ? "" : ", ") + toml_key(m.key) + " = " + toml_value(m.value);
    }
    w.key(p + ".model", "model = { " + model + " }");
  }
  w.out() += detail::instrument_lines(v.instrument);
  if (const std::string inject = detail::inject_line(v.inject); !inject.empty()) {
    w.above(p + ".inject", "");
    w.out() += inject;
  }
}

std::string level_text(const VarySpec& vary, const VaryLevel& level) {
  if (vary.factor == "version") return toml_string(level.version);
  if (vary.factor == "ranks") return std::to_string(level.ranks);
  if (vary.factor == "delay") return detail::delay_entry(level.delay);
  return toml_value(level.model_value);
}

void write_vary(SectionWriter& w, const std::vector<VarySpec>& blocks) {
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const VarySpec& vary = blocks[i];
    const std::string p = "vary[" + std::to_string(i) + "]";
    w.table("[[vary]]");
    w.key(p + ".factor", "factor = " + toml_string(vary.factor));
    std::string levels;
    for (const VaryLevel& level : vary.levels) {
      levels += (levels.empty() ? "" : ", ") + level_text(vary, level);
    }
    w.key(p + ".levels", "levels = [" + levels + "]");
  }
}

void write_bisect(SectionWriter& w, const BisectSpec& b) {
  w.table("[bisect]");
  if (!b.git) {
    w.key("bisect.versions", "versions = " + detail::toml_string_array(b.versions));
    return;
  }
  const GitBisectSpec& g = *b.git;
  std::string git = "git = { repo = " + toml_string(g.repo) + ", good = " + toml_string(g.good) +
                    ", bad = " + toml_string(g.bad);
  if (!g.build.empty()) git += ", build = " + detail::toml_string_array(g.build);
  if (!g.command.empty()) git += ", command = " + detail::toml_string_array(g.command);
  if (!g.model_file.empty()) git += ", model_file = " + toml_string(g.model_file);
  w.key("bisect.git", git + " }");
}

}  // namespace

std::string write_manifest(const Manifest& manifest, const ManifestLayout& comments) {
  std::string out;
  for (const auto& line : comments.header) {
    out += line.empty() ? "#\n" : "# " + SectionWriter::safe(line) + "\n";
  }
  SectionWriter w(comments, out);
  write_experiment(w, manifest.settings);
  write_launch(w, manifest.settings.launch);
  if (manifest.reduced_from) write_reduced_from(w, *manifest.reduced_from);
  write_baseline(w, manifest.baseline);
  for (const auto& name : comments.version_order) {
    if (auto it = manifest.versions.find(name); it != manifest.versions.end()) {
      write_version(w, it->second);
    }
  }
  for (const auto& [name, version] : manifest.versions) {
    const auto& first = comments.version_order;
    if (std::find(first.begin(), first.end(), name) == first.end()) write_version(w, version);
  }
  write_vary(w, manifest.vary);
  if (manifest.bisect) write_bisect(w, *manifest.bisect);
  // Without a header the text starts at its first table, not at a blank line.
  return comments.header.empty() ? out.substr(1) : out;
}

}  // namespace culprit::manifest
