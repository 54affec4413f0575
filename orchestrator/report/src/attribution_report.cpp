#include "culprit/report/attribution_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace culprit::report {
namespace {

using analysis::Category;

double ms(double ns) {
  return ns / 1e6;
}

void write_components(JsonWriter& json, const analysis::StepDecomposition& d) {
  json.key("components").begin_array();
  for (const analysis::Component& c : d.components) {
    begin_component(json, c.category, c.rank, c.phase, c.layer).field("ms", ms(c.ns)).end_object();
  }
  json.end_array();
  json.field("unclassified_ms", ms(d.unclassified_ns));
}

void write_summary(JsonWriter& json, const analysis::RunAttribution& a) {
  json.key("summary").begin_object();
  json.field("run", a.run_id).field("ranks", a.ranks).field("warmup_steps", a.warmup_steps);
  json.field("median_step_ms", a.median_step_ms);
  json.key("culprit");
  write_run_culprit(json, a.culprit);
  json.key("symptom");
  write_symptom(json, a.symptom);
  json.key("last_arriver_counts").begin_array();
  for (const auto& [rank, steps] : a.last_arriver_counts)
    json.begin_object().field("rank", rank).field("steps", steps).end_object();
  json.end_array();
  json.field("undecided_steps", a.undecided_steps);
  json.field("partial", a.partial);
  json.field("incomplete_collectives", a.incomplete_collectives);
  json.field_or_null("cannot_decide", a.cannot_decide);
  json.field_or_null("noise_note", a.noise_note);
  json.field_or_null("costless_note", a.costless_note);
  json.key("delay_costs")
      .begin_object()
      .field("total_wait_ms", ms(a.costs.total_wait_ns))
      .field("total_cost_ms", ms(a.costs.total_cost_ns))
      .field("conservation_error_ms", ms(a.costs.conservation_error_ns()));
  json.key("top").begin_array();
  const auto top = a.costs.by_rank_phase_layer();
  for (std::size_t i = 0; i < top.size() && i < 10; ++i) {
    json.begin_object()
        .field("rank", top[i].rank)
        .field("phase", top[i].phase)
        .field("layer", top[i].layer)
        .field("late_call", top[i].late_call)
        .field("ms", ms(top[i].cost_ns))
        .end_object();
  }
  json.end_array().end_object();
  json.key("what_if");
  if (a.what_if.rank < 0 || !a.what_if.complete) {
    json.null();
  } else {
    json.begin_object()
        .field("rank", a.what_if.rank)
        .field("measured_median_ms", a.what_if.measured_median_ms)
        .field("whatif_median_ms", a.what_if.whatif_median_ms)
        .field("saved_ms", a.what_if.saved_ms())
        .end_object();
  }
  json.key("efficiency").begin_object();
  const analysis::Efficiency& e = a.efficiency;
  for (const auto& [name, ratio] : {std::pair{"mfu", &e.mfu},
                                    {"gemm_flops_per_s", &e.gemm_rate},
                                    {"algbw", &e.algbw},
                                    {"busbw", &e.busbw},
                                    {"exposed_comm_fraction", &e.exposed_comm},
                                    {"visual_overlap", &e.visual_overlap}}) {
    json.key(name);
    write_ratio(json, *ratio);
  }
  json.key("bandwidth_by_operation").begin_array();
  for (const analysis::Ratio& r : e.bandwidth_by_operation) {
    json.begin_object().field("name", r.name).key("ratio");
    write_ratio(json, r);
    json.end_object();
  }
  json.end_array();
  json.end_object();
  json.key("sampled_activity");
  write_sampled_activity(json, a.activity);
  json.key("alignment")
      .begin_object()
      .field("max_uncertainty_ms", ms(a.alignment.max_uncertainty_ns))
      .field("undecided_collectives", a.alignment.undecided_collectives);
  json.field("contradicted_ranks", a.alignment.contradicted_ranks).end_object();
  json.end_object();
}

// The steady step whose time is the median (the lower middle one for an even count).
const analysis::StepAttribution* median_step(const analysis::RunAttribution& a) {
  std::vector<const analysis::StepAttribution*> steady;
  for (const auto& s : a.steps) {
    if (!s.decomposition.warmup) steady.push_back(&s);
  }
  if (steady.empty()) return nullptr;
  std::sort(steady.begin(), steady.end(),
            [](auto* x, auto* y) { return x->decomposition.time_ns < y->decomposition.time_ns; });
  return steady[(steady.size() - 1) / 2];
}

std::string describe_component(const analysis::Component& c) {
  switch (c.category) {
    case Category::kTypical:
      return fmt::format("typical {}", c.phase);
    case Category::kStraggler:
      return fmt::format("straggler rank {} {}", c.rank, describe_phase(c.phase, c.layer));
    case Category::kExposedComm:
      return fmt::format("exposed {}", c.phase);
    case Category::kHostGap:
      return "host gaps";
  }
  return "?";
}

std::string rank_text(const analysis::StepAttribution& s) {
  if (s.last_arriver < 0) return "-";
  if (s.last_arriver_decided) return std::to_string(s.last_arriver);
  return fmt::format("{}?", s.last_arriver);  // within clock uncertainty of another rank
}

}  // namespace

std::string describe_phase(const std::string& phase, int layer, bool late_call) {
  if (phase.empty()) return "(lateness no phase explains)";
  if (late_call || phase == "allreduce") {
    return layer >= 0 ? fmt::format("{} bucket {} (late call)", phase, layer)
                      : fmt::format("{} (late call)", phase);
  }
  return layer >= 0 ? fmt::format("{} layer {}", phase, layer) : phase;
}

std::string describe_place(const std::string& phase, int layer, int microbatch) {
  const std::string place = describe_phase(phase, layer);
  return microbatch >= 0 ? fmt::format("{} microbatch {}", place, microbatch) : place;
}

std::string describe_waiters(int waiting_ranks, double median_wait_ms, int collective) {
  if (waiting_ranks <= 0) return "no rank waited beyond noise";
  return fmt::format(
      "{} rank{} waited a median {:.2f} ms at {}", waiting_ranks, waiting_ranks == 1 ? "" : "s",
      median_wait_ms,
      collective >= 0 ? fmt::format("allreduce #{}", collective) : std::string("the collective"));
}

namespace {

// Where a culprit sits: the fields a step's culprit and a run's culprit share.
template <class C>
JsonWriter& write_place(JsonWriter& json, const C& c) {
  return json.begin_object()
      .field("rank", c.rank)
      .field("phase", c.phase)
      .field("layer", c.layer)
      .field("microbatch", c.microbatch)
      .field("step", c.step)
      .field("collective", c.collective);
}

}  // namespace

void write_culprit(JsonWriter& json, const analysis::Culprit& c) {
  if (!c.found) {
    json.null();
    return;
  }
  write_place(json, c).field("excess_ms", ms(c.excess_ns)).end_object();
}

void write_run_culprit(JsonWriter& json, const analysis::RunCulprit& c) {
  if (!c.found) {
    json.null();
    return;
  }
  write_place(json, c)
      .field("excess_ms", c.excess_ms)
      .field("steps_blamed", c.steps_blamed)
      .field("steady_steps", c.steady_steps)
      .field_or_null("environment", c.environment)
      .end_object();
}

void write_sampled_activity(JsonWriter& json, const analysis::SampledActivity& a) {
  json.begin_object()
      .field("period_s", a.period_s)
      .field("samples", a.samples)
      .field("sampled_share", a.sampled_share)
      .field("busy_share", a.busy_share)
      .field("span_s", a.span_s)
      .end_object();
}

void write_symptom(JsonWriter& json, const analysis::Symptom& s) {
  json.begin_object()
      .field("waiting_ranks", s.waiting_ranks)
      .field("median_wait_ms", s.median_wait_ms)
      .field("total_wait_ms", s.total_wait_ms)
      .end_object();
}

JsonWriter& begin_component(JsonWriter& json, analysis::Category category, int rank,
                            const std::string& phase, int layer) {
  return json.begin_object()
      .field("category", analysis::category_name(category))
      .field("rank", rank)
      .field("phase", phase)
      .field("layer", layer);
}

void write_ratio(JsonWriter& json, const analysis::Ratio& r) {
  json.begin_object();
  if (r.available()) {
    json.field("value", r.value);
  } else {
    json.key("value").null();
  }
  json.field("numerator", r.numerator)
      .field("numerator_unit", r.numerator_unit)
      .field("denominator", r.denominator)
      .field("denominator_unit", r.denominator_unit)
      .field("unit", r.unit);
  if (!r.available()) json.field("missing", r.missing);
  json.end_object();
}

std::string describe_ratio(const analysis::Ratio& r) {
  if (!r.available()) return fmt::format("{}: n/a ({})", r.name, r.missing);
  const std::string value = r.unit.empty() ? fmt::format("{:.1f} %", 100 * r.value)
                                           : fmt::format("{:.4g} {}", r.value, r.unit);
  return fmt::format("{}: {} = {:.4g} {} / {:.4g} {}", r.name, value, r.numerator, r.numerator_unit,
                     r.denominator, r.denominator_unit);
}

namespace {

std::string attribution_json(const analysis::RunAttribution& a) {
  JsonWriter json;
  json.begin_object();
  json.field("run", a.run_id);
  json.key("steps").begin_array();
  for (const analysis::StepAttribution& s : a.steps) {
    const analysis::StepDecomposition& d = s.decomposition;
    json.begin_object()
        .field("step", d.step)
        .field("warmup", d.warmup)
        .field("time_ms", ms(d.time_ns))
        .field("last_arriver", s.last_arriver)
        .field("last_arriver_decided", s.last_arriver_decided)
        .field("collective", s.collective)
        .field("waiting_ranks", s.waiting_ranks)
        .field("whatif_ms", s.whatif_ms);
    json.key("culprit");
    write_culprit(json, d.culprit);
    json.field_or_null("cannot_decide", s.cannot_decide);
    write_components(json, d);
    json.end_object();
  }
  json.end_array();
  write_summary(json, a);
  json.end_object();
  return json.str();
}

// Sections of the text report, each a block of lines ending in "\n".

// The run, its culprit (or why there is none) and the symptom the culprit caused.
std::string culprit_lines(const analysis::RunAttribution& a) {
  int steady = 0;
  for (const auto& s : a.steps) steady += s.decomposition.warmup ? 0 : 1;
  std::string out = fmt::format(
      "run {}: {} ranks, {} steady steps ({} warm-up), median step {:.2f} ms\n", a.run_id, a.ranks,
      steady, a.steps.size() - static_cast<std::size_t>(steady), a.median_step_ms);
  const analysis::RunCulprit& c = a.culprit;
  if (!c.found) {
    return out +
           (!a.cannot_decide.empty()   ? "culprit: cannot decide - " + a.cannot_decide
            : !a.noise_note.empty()    ? "culprit: cannot decide - " + a.noise_note
            : !a.costless_note.empty() ? "culprit: none - " + a.costless_note
                                       : "culprit: none - no phase diverges from its peers beyond "
                                         "noise in enough steps") +
           "\n";
  }
  out += fmt::format(
      "culprit (first unexplained divergence): rank {} {}, {:+.2f} ms "
      "over the peer median, first divergence in {}/{} steps\n",
      c.rank, describe_place(c.phase, c.layer, c.microbatch), c.excess_ms, c.steps_blamed,
      c.steady_steps);
  out += fmt::format(
      "symptom: {} (summed waits {:.2f} ms per step) - waiting is the symptom, not the cause\n",
      describe_waiters(a.symptom.waiting_ranks, a.symptom.median_wait_ms, c.collective),
      a.symptom.total_wait_ms);
  if (!c.environment.empty()) out += "environment: " + c.environment + "\n";
  return out;
}

// Who arrived last at the costliest collective, and in how many steps that cannot be told.
std::string last_arriver_lines(const analysis::RunAttribution& a) {
  if (a.last_arriver_counts.empty()) return "";
  std::string counts;
  for (std::size_t i = 0; i < a.last_arriver_counts.size() && i < 5; ++i) {
    counts += fmt::format("{}rank {} in {} steps", i ? ", " : "", a.last_arriver_counts[i].first,
                          a.last_arriver_counts[i].second);
  }
  return fmt::format("last arriver at the costliest collective: {}{}\n", counts,
                     a.partial ? fmt::format(" (cannot decide in {} steps: partial run, {} "
                                             "collective(s) miss members not imported)",
                                             a.undecided_steps, a.incomplete_collectives)
                     : a.undecided_steps
                         ? fmt::format(" (cannot decide in {} steps: within clock "
                                       "uncertainty {:.3f} ms)",
                                       a.undecided_steps, ms(a.alignment.max_uncertainty_ns))
                         : "");
}

std::string what_if_lines(const analysis::RunAttribution& a) {
  if (a.what_if.rank < 0 || !a.what_if.complete) return "";
  return fmt::format(
      "what-if rank {} at the peer median: median step {:.2f} -> {:.2f} ms ({:+.2f} ms)\n",
      a.what_if.rank, a.what_if.measured_median_ms, a.what_if.whatif_median_ms,
      -a.what_if.saved_ms());
}

// The median step's critical path, largest component first, reconciled to its time.
std::string decomposition_lines(const analysis::RunAttribution& a) {
  const analysis::StepAttribution* m = median_step(a);
  if (!m) return "";
  const analysis::StepDecomposition& d = m->decomposition;
  std::string out =
      fmt::format("\ndecomposition of the median step (step {}, {:.2f} ms, critical path):\n",
                  d.step, ms(d.time_ns));
  std::vector<analysis::Component> parts = d.components;
  std::sort(parts.begin(), parts.end(), [](const auto& x, const auto& y) { return x.ns > y.ns; });
  for (const analysis::Component& p : parts)
    out += fmt::format("  {:>10.2f} ms  {}\n", ms(p.ns), describe_component(p));
  out += fmt::format("  {:>10.2f} ms  unclassified\n", ms(d.unclassified_ns));
  out += fmt::format("  {:>10.2f} ms  = step time\n", ms(d.time_ns));
  return out;
}

// A run shorter than one sampling period has no dashboard figure to contrast: only the exact
// share is printed.
std::string activity_lines(const analysis::RunAttribution& a) {
  const analysis::SampledActivity& s = a.activity;
  if (s.samples <= 0) {
    return fmt::format("\nexact busy share {:.1f} % over {:.2f} s\n", 100 * s.busy_share, s.span_s);
  }
  return fmt::format(
             "\nsampled activity (a {:.0f} s dashboard): {:.0f} % of {} samples busy - it does "
             "not locate the cause; the decomposition above does\n",
             s.period_s, 100 * s.sampled_share, s.samples * a.ranks) +
         fmt::format("  exact busy share {:.1f} % over {:.2f} s\n", 100 * s.busy_share, s.span_s);
}

// Delay costs against the waiting they explain, the five largest by (rank, phase, layer).
std::string cost_lines(const analysis::RunAttribution& a) {
  std::string out = fmt::format(
      "\ndelay costs: {:.2f} ms charged for {:.2f} ms of waiting (error {:.2g} ms)\n",
      ms(a.costs.total_cost_ns), ms(a.costs.total_wait_ns), ms(a.costs.conservation_error_ns()));
  const auto top = a.costs.by_rank_phase_layer();
  for (std::size_t i = 0; i < top.size() && i < 5 && top[i].cost_ns >= 5e3; ++i) {
    out += fmt::format("  {:>10.2f} ms  rank {} {}\n", ms(top[i].cost_ns), top[i].rank,
                       describe_phase(top[i].phase, top[i].layer, top[i].late_call));
  }
  return out;
}

std::string efficiency_lines(const analysis::RunAttribution& a) {
  std::string out = "\nefficiency (steady steps):\n";
  for (const analysis::Ratio* r :
       {&a.efficiency.mfu, &a.efficiency.gemm_rate, &a.efficiency.algbw, &a.efficiency.busbw,
        &a.efficiency.exposed_comm, &a.efficiency.visual_overlap}) {
    out += "  " + describe_ratio(*r) + "\n";
  }
  for (const analysis::Ratio& r : a.efficiency.bandwidth_by_operation)
    out += "    " + describe_ratio(r) + "\n";
  return out +
         "  useful overlap: needs an overlap on/off pair (culprit explain on a model.overlap "
         "experiment)\n";
}

// One line per step: its time, its last arriver and its culprit.
std::string step_lines(const analysis::RunAttribution& a) {
  std::string out = "\n step   time ms  last  culprit\n";
  for (const analysis::StepAttribution& s : a.steps) {
    const analysis::StepDecomposition& d = s.decomposition;
    const std::string culprit =
        d.culprit.found
            ? fmt::format("rank {} {} {:+.2f} ms", d.culprit.rank,
                          describe_place(d.culprit.phase, d.culprit.layer, d.culprit.microbatch),
                          ms(d.culprit.excess_ns))
            : "-";
    out += fmt::format("{:>5}{} {:>9.2f}  {:>4}  {}\n", d.step, d.warmup ? "w" : " ", ms(d.time_ns),
                       rank_text(s), culprit);
  }
  return out;
}

std::string attribution_text(const analysis::RunAttribution& a) {
  return culprit_lines(a) + last_arriver_lines(a) + what_if_lines(a) + decomposition_lines(a) +
         activity_lines(a) + cost_lines(a) + efficiency_lines(a) + step_lines(a);
}

}  // namespace

std::string attribution_document(const analysis::RunAttribution& attribution, Format format) {
  return format == Format::kJson ? json_document(attribution_json(attribution))
                                 : text_document(attribution_text(attribution));
}

}  // namespace culprit::report
