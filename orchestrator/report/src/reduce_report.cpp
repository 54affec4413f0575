#include "culprit/report/reduce_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "culprit/report/json_writer.hpp"

namespace culprit::report {
namespace {

// Steps per reduced run when the source had fewer than kFewSteps: a run's median over few
// steps is noisy (8 steps of a profiler window), and more steps cost the simulator little;
// hiccups keep their positions.
constexpr int kFewSteps = 32;
constexpr int kMinSteps = 64;

// A TOML basic string: imported region names may hold quotes, backslashes, control bytes.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\u{:04X}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// Comments are one line each: a name with a newline must not end the comment early.
std::string comment_safe(const std::string& text) {
  std::string out;
  for (unsigned char c : text) out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
  return out;
}

std::string number(double value) {
  std::string text = fmt::format("{:.6f}", value);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text == "-0" ? "0" : text;
}

std::string schedule_entry(const stepmodel::SchedulePhase& p) {
  std::string out = "{ name = " + quoted(p.name);
  if (p.collective) {
    out += ", collective = true, seq = " + std::to_string(p.seq) +
           ", bytes = " + std::to_string(p.bytes);
    if (p.async) out += ", async = true";
  }
  if (p.layer >= 0) out += ", layer = " + std::to_string(p.layer);
  if (p.microbatch >= 0) out += ", microbatch = " + std::to_string(p.microbatch);
  out += ", ms = " + number(p.ms);
  if (p.gap_ms > 0) out += ", gap_ms = " + number(p.gap_ms);
  if (p.waits) out += ", waits = true";
  return out + " }";
}

std::string delay_entry(const stepmodel::DelayInjection& d) {
  std::string out = "{ rank = ";
  out += d.rank == stepmodel::kEveryRank ? "\"all\"" : std::to_string(d.rank);
  out += ", phase = " + quoted(d.phase);
  if (d.layer >= 0) out += ", layer = " + std::to_string(d.layer);
  if (d.microbatch >= 0) out += ", microbatch = " + std::to_string(d.microbatch);
  if (d.step_first >= 0 && d.step_first == d.step_last) {
    out += ", steps = " + std::to_string(d.step_first);
  } else if (d.step_first >= 0 || d.step_last >= 0) {
    out += ", steps = [" + std::to_string(d.step_first) + ", " + std::to_string(d.step_last) + "]";
  }
  return out + ", ms = " + number(d.ms) + ", mode = \"sleep\" }";
}

std::string cause_title(const analysis::Cause& c) {
  std::string where = c.phase + (c.layer >= 0 ? " layer " + std::to_string(c.layer) : "");
  if (c.kind == "straggler") {
    std::string rank = "rank " + std::to_string(c.original_rank);
    return "straggler: " + rank + " " + where;
  }
  return "typical shift: every rank's " + where;
}

std::string inject_line(const std::vector<stepmodel::DelayInjection>& delays) {
  std::string out = "inject = { delays = [\n";
  for (const auto& d : delays) out += "  " + delay_entry(d) + ",\n";
  return out + "] }\n";
}

std::string signed_ms(double ms) {
  return fmt::format("{:+.2f} ms", ms);
}

}  // namespace

std::string reduced_manifest(const analysis::Reduction& r, const ReducedManifestOptions& o) {
  const analysis::Calibration& c = r.baseline;
  const analysis::Explanation& e = r.original;
  std::string out;
  out += fmt::format(
      "# Reduced by `culprit reduce` from runs {} (baseline) and {} (candidate) of {}.\n"
      "# A controlled experiment: a model of the same job, calibrated on the baseline run, with\n"
      "# each cause that blind attribution found injected on purpose. If the causes are right,\n"
      "# each one alone reproduces its share of the original change, and the control, which\n"
      "# injects nothing, is equivalent to the baseline.\n"
      "#   culprit run THIS.toml --db reduced.db && culprit explain --db reduced.db\n"
      "#\n"
      "# Original: median step {:.2f} ms -> {:.2f} ms ({}) in this pair of runs.\n",
      e.baseline_runs.empty() ? 0 : e.baseline_runs.front(),
      e.candidate_runs.empty() ? 0 : e.candidate_runs.front(), comment_safe(o.source_db),
      e.baseline_median_ms, e.candidate_median_ms, signed_ms(e.delta_ms));
  if (o.baseline_config_runs >= 2 && o.candidate_config_runs >= 2) {
    out += fmt::format(
        "# Their configurations ({} vs {} ok runs) differ by a Hodges-Lehmann shift of {}: the\n"
        "# change to reproduce (the pair's own difference carries its run-to-run noise).\n",
        o.baseline_config_runs, o.candidate_config_runs, signed_ms(o.configuration_shift_ms));
  }
  out += fmt::format(
      "# Calibration: run {}, {} ranks x {} steady steps; the step below holds the phases present\n"
      "# in most (rank, steady step) instances, in one instance's issue order, each at the median\n"
      "# over the instances; time a rank spent waiting for a collective is left to the model's\n"
      "# own waiting. The schedule adds up to {:.2f} ms on one rank; the measured median step is\n"
      "# {:.2f} ms (the rest is waiting for the slowest rank at each collective).\n",
      c.run_id, c.ranks, c.steady_steps, c.schedule_ms, c.median_step_ms);
  if (r.level_scale != 1) {
    out += fmt::format(
        "# Run {} is one draw of its configuration's run-to-run drift: every duration below is\n"
        "# scaled by {:.4f} = the median of its configuration's {} run medians / its own median.\n",
        c.run_id, r.level_scale, r.run_cv_runs);
  }
  if (r.model_median_ms > 0) {
    out += fmt::format(
        "# Level: the model, simulated at {} ranks ({} seeds), has a median step of {:.2f} ms;\n"
        "# every duration, gap and transfer below is scaled by {:.4f} to put it on the baseline's\n"
        "# {:.2f} ms (the simulator scales exactly; the injected delays are not scaled).\n",
        c.ranks, 15, r.model_median_ms, r.model_scale, c.median_step_ms * r.level_scale);
  }
  if (r.ranks != c.ranks) {
    out += fmt::format(
        "# Scaled down from {} to {} ranks: every rank keeps its per-rank work. A delay on one "
        "rank\n"
        "# makes every data-parallel peer wait whatever the rank count, so stragglers scale down;\n"
        "# ring transfer time does not (a ring's time goes with 2(n-1)/n), and is kept as "
        "measured.\n",
        c.ranks, r.ranks);
  }
  for (const auto& note : r.notes) out += "# Note: " + comment_safe(note) + "\n";
  for (const auto& note : c.notes) out += "# Calibration note: " + comment_safe(note) + "\n";
  for (const auto& miss : r.not_reproduced) {
    out += "# Not reproduced (left to unclassified): " + comment_safe(miss) + "\n";
  }

  out += fmt::format(
      "\n[experiment]\nname = {}\nrepetitions = {}\nwarmup_steps = {}\nsteps = {}\nseed = {}\n"
      "order = \"interleaved\"\n",
      quoted(o.name), o.repetitions, c.warmup_steps,
      c.steady_steps < kFewSteps ? kMinSteps : c.steady_steps, o.seed);
  out +=
      fmt::format("\n[stats]\nalpha = 0.05\nmargin = 0.02\nmax_repetitions = {}\n", o.repetitions);
  out += fmt::format(
      "\n[reduced_from]\nbaseline_run = {}\ncandidate_run = {}\nbaseline_median_ms = {}\n"
      "candidate_median_ms = {}\ndelta_ms = {}\ndb = {}\n",
      e.baseline_runs.empty() ? 0 : e.baseline_runs.front(),
      e.candidate_runs.empty() ? 0 : e.candidate_runs.front(), number(e.baseline_median_ms),
      number(e.candidate_median_ms), number(e.delta_ms), quoted(o.source_db));
  if (!r.excess_steps.empty()) {
    std::string steps;
    for (int s : r.excess_steps) steps += (steps.empty() ? "" : ", ") + std::to_string(s);
    out += fmt::format(
        "# The hiccup steps (positions) and the candidate's mean step excess there over its own\n"
        "# median step: what the causes' runs must reproduce in those steps.\n"
        "excess_steps = [{}]\nstep_excess_ms = {}\n",
        steps, number(r.step_excess_ms));
  }
  if (o.baseline_config_runs >= 2 && o.candidate_config_runs >= 2) {
    out += fmt::format("shift_ms = {}\nshift_runs = [{}, {}]\n",
                       number(std::round(o.configuration_shift_ms * 100) / 100),
                       o.baseline_config_runs, o.candidate_config_runs);
  }

  out += fmt::format("\n[baseline]\nversion = \"model\"\nranks = {}\nbackend = {}\n", r.ranks,
                     quoted(o.backend));
  out += "\n[baseline.model]\ncompute = \"sleep\"\n";
  out += fmt::format(
      "noise_cv = {}  # robust CV of the compute phases' durations in run {}, their median "
      "weighted by time\n",
      number(c.noise_cv), c.run_id);
  if (r.run_cv_runs >= 2) {
    out += fmt::format(
        "run_cv = {}  # robust CV of the run medians of run {}'s configuration ({} runs)\n",
        number(r.run_cv), c.run_id, r.run_cv_runs);
  } else {
    out += "run_cv = 0  # one baseline run: its run-to-run noise is unknown\n";
  }
  out +=
      "schedule = [\n"
      "  # ms: compute duration, or a collective's transfer time after the last arrival;\n"
      "  # gap_ms: host time before the phase; bytes: the collective's payload.\n";
  for (const auto& p : c.phases) {
    out += "  " + schedule_entry(p.phase) + ",";
    if (p.phase.collective && p.wait_ms > 0) {
      out += fmt::format("  # median wait at the call {:.3f} ms", p.wait_ms);
    }
    out += "\n";
  }
  out += "]\n";

  out += "\n[versions.\"model\"]\ndescription = \"the calibrated model, nothing injected\"\n";
  std::vector<std::string> levels;
  std::vector<stepmodel::DelayInjection> all;
  for (std::size_t i = 0; i < r.causes.size(); ++i) {
    const analysis::Cause& cause = r.causes[i];
    const std::string label = "cause-" + std::to_string(i + 1);
    levels.push_back(label);
    out += fmt::format("\n[versions.{}]\n", quoted(label));
    out += "description = " +
           quoted(cause_title(cause) + " (" + signed_ms(cause.component_ms) +
                  " in explain of the original pair)") +
           "\n";
    out += "# " + comment_safe(cause.where_from) + "\n";
    out += inject_line(cause.delays);
    all.insert(all.end(), cause.delays.begin(), cause.delays.end());
  }
  if (r.causes.size() > 1) {
    levels.emplace_back("all-causes");
    out += "\n[versions.\"all-causes\"]\ndescription = \"every cause above together\"\n";
    out += inject_line(all);
  }
  levels.emplace_back("control");
  out +=
      "\n[versions.\"control\"]\n"
      "description = \"the model again, nothing injected: must be equivalent to the baseline\"\n";
  out += "\n[[vary]]\nfactor = \"version\"\nlevels = [";
  for (std::size_t i = 0; i < levels.size(); ++i) {
    out += (i ? ", " : "") + quoted(levels[i]);
  }
  out += "]\n";
  return out;
}

std::string reduce_summary_text(const analysis::Reduction& r, const std::string& output) {
  std::string out = fmt::format(
      "wrote {}: {} ranks, {} phases per step, {} cause(s) of {} (run {} -> run {})\n", output,
      r.ranks, r.baseline.phases.size(), r.causes.size(), signed_ms(r.original.delta_ms),
      r.original.baseline_runs.front(), r.original.candidate_runs.front());
  for (std::size_t i = 0; i < r.causes.size(); ++i) {
    const analysis::Cause& c = r.causes[i];
    out += fmt::format("  cause-{}: {} ({} in explain), {} delay(s)\n", i + 1, cause_title(c),
                       signed_ms(c.component_ms), c.delays.size());
  }
  for (const auto& miss : r.not_reproduced) out += "  not reproduced: " + miss + "\n";
  for (const auto& note : r.notes) out += "  note: " + note + "\n";
  return out;
}

std::string reduce_summary_json(const analysis::Reduction& r, const std::string& output) {
  JsonWriter w;
  w.begin_object().field("output", output).field("ranks", r.ranks);
  w.field("phases", static_cast<std::int64_t>(r.baseline.phases.size()));
  w.field("baseline_run", r.original.baseline_runs.front());
  w.field("candidate_run", r.original.candidate_runs.front());
  w.field("delta_ms", round_centi(r.original.delta_ms));
  w.field("baseline_median_ms", r.baseline.median_step_ms * r.level_scale);
  w.field("model_scale", r.model_scale);
  w.key("excess_steps").begin_array();
  for (int s : r.excess_steps) w.value(s);
  w.end_array();
  w.field("step_excess_ms", r.step_excess_ms);
  w.key("causes").begin_array();
  for (std::size_t i = 0; i < r.causes.size(); ++i) {
    const analysis::Cause& c = r.causes[i];
    w.begin_object().field("label", "cause-" + std::to_string(i + 1)).field("kind", c.kind);
    w.field("rank", c.original_rank).field("phase", c.phase).field("layer", c.layer);
    w.field("component_ms", round_centi(c.component_ms));
    w.key("delays").begin_array();
    for (const auto& d : c.delays) {
      w.begin_object().field("rank", d.rank).field("phase", d.phase).field("layer", d.layer);
      w.field("microbatch", d.microbatch).field("step_first", d.step_first);
      w.field("step_last", d.step_last).field("ms", d.ms).end_object();
    }
    w.end_array().end_object();
  }
  w.end_array();
  w.key("not_reproduced").begin_array();
  for (const auto& miss : r.not_reproduced) w.value(miss);
  w.end_array();
  w.key("notes").begin_array();
  for (const auto& note : r.notes) w.value(note);
  for (const auto& note : r.baseline.notes) w.value(note);
  w.end_array();
  w.end_object();
  return w.str() + "\n";
}

std::string reproduction_text(const std::vector<analysis::Reproduced>& rows,
                              double original_delta_ms) {
  std::string out =
      fmt::format("reproduction of the original {} change:\n", signed_ms(original_delta_ms));
  for (const auto& row : rows) {
    if (std::isnan(row.share)) {
      out += fmt::format("  {}: {} (the original change is below 0.01 ms)\n", row.label,
                         signed_ms(row.delta_ms));
      continue;
    }
    if (row.label.find("control") != std::string::npos) {
      out += fmt::format("  {}: {} (injects nothing: expected 0 %)\n", row.label,
                         signed_ms(row.delta_ms));
      continue;
    }
    const double percent = std::round(100.0 * row.share);
    out += fmt::format("  {}: {} reproduces {:.0f} % of the original {} (not reproduced: {})\n",
                       row.label, signed_ms(row.delta_ms), percent == 0 ? 0.0 : percent,
                       signed_ms(original_delta_ms), signed_ms(row.remainder_ms));
  }
  return out;
}

std::string step_excess_text(const std::vector<analysis::StepExcess>& rows,
                             const std::vector<int>& steps, double original_ms) {
  std::string list;
  for (int s : steps) list += (list.empty() ? "" : ", ") + std::to_string(s);
  std::string out =
      fmt::format("reproduction of the original hiccup: step(s) {} {} over the median step:\n",
                  list, signed_ms(original_ms));
  for (const auto& row : rows) {
    const bool expected_zero =
        row.label == "baseline" || row.label.find("control") != std::string::npos;
    if (expected_zero || std::abs(original_ms) < 0.01) {
      out += fmt::format("  {}: {} ({} runs{})\n", row.label, signed_ms(row.excess_ms), row.runs,
                         expected_zero ? ", injects nothing: expected 0 %" : "");
      continue;
    }
    const double percent = std::round(100.0 * row.excess_ms / original_ms);
    out += fmt::format("  {}: {} reproduces {:.0f} % of the original {} ({} runs)\n", row.label,
                       signed_ms(row.excess_ms), percent == 0 ? 0.0 : percent,
                       signed_ms(original_ms), row.runs);
  }
  return out;
}

}  // namespace culprit::report
