#include "culprit/reduce/reduction.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "culprit/analysis/attribution.hpp"
#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/phase_stats.hpp"
#include "culprit/analysis/robust.hpp"
#include "culprit/analysis/timeline.hpp"
#include "culprit/common/median.hpp"
#include "culprit/errors.hpp"

namespace culprit::reduce {

using analysis::attribute_run;
using analysis::build_timeline;
using analysis::Category;
using analysis::Culprit;
using analysis::EventIndex;
using analysis::explain;
using analysis::ExplainedComponent;
using analysis::Explanation;
using analysis::median_step;
using analysis::median_step_ms;
using analysis::PhaseStats;
using analysis::robust_cv;
using analysis::RunAttribution;
using analysis::StepAttribution;
using analysis::StoredExplanations;
using analysis::Timeline;
namespace {

double round_ms(double ms) {
  return std::round(ms * 1000.0) / 1000.0;  // microseconds: finer than any delay we sleep
}

std::string fixed(double value, int digits = 2) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%+.*f", digits, value);
  return buffer;
}

// The steady steps' positions in Timeline::steps; a reduced experiment numbers its steps by
// position (warm-up first), whatever numbering the source run used.
std::map<int, int> step_positions(const Timeline& t) {
  std::map<int, int> out;
  for (std::size_t i = 0; i < t.steps.size(); ++i) out[t.steps[i].step] = static_cast<int>(i);
  return out;
}

struct StragglerKey {
  int rank;
  std::string phase;
  int layer;
  auto operator<=>(const StragglerKey&) const = default;
};

// Excess beyond noise of every instance of (rank, phase, layer) per steady step and
// microbatch: how a straggler's delay is spread over the step, measured on the candidate.
std::map<std::pair<int, int>, double> diverging_excess(const Timeline& t, const PhaseStats& ps,
                                                       const StragglerKey& key, int name) {
  std::map<std::pair<int, int>, double> out;  // (step, microbatch) -> excess ns
  // key.rank is the job's rank id (attribute_run's); the timeline is indexed by position.
  const int position = t.run->position_of(key.rank);
  if (position < 0) return out;
  for (EventIndex e : t.by_begin[static_cast<std::size_t>(position)]) {
    const storage::Event& ev = t.event(e);
    if (ev.name != name || ev.layer != key.layer || ev.kind == storage::EventKind::kCollective) {
      continue;
    }
    if (ps.diverges(t, e)) out[{ev.step, ev.microbatch}] += ps.excess_ns(t, e);
  }
  return out;
}

// A straggler's excess per (step, microbatch) on its rank, steady steps only, grouped both ways.
struct SpreadExcess {
  std::map<int, std::vector<double>> by_microbatch;  // over steps
  std::map<int, std::map<int, double>> by_step;      // step -> microbatch -> ns
};

SpreadExcess spread_excess(const Timeline& t, const PhaseStats& ps, const StragglerKey& key,
                           const std::vector<const StepAttribution*>& blamed) {
  const std::map<int, int> position = step_positions(t);
  const int name = t.run->name_index(key.phase);
  std::map<std::pair<int, int>, double> excess = diverging_excess(t, ps, key, name);
  if (excess.empty()) {
    // A late call (the collective's own phase): the step culprits carry the excess.
    for (const StepAttribution* s : blamed) {
      excess[{s->decomposition.step, -1}] += s->decomposition.culprit.excess_ns;
    }
  }
  SpreadExcess out;
  for (const auto& [where, ns] : excess) {
    if (!position.contains(where.first) ||
        t.steps[static_cast<std::size_t>(position.at(where.first))].warmup) {
      continue;
    }
    out.by_microbatch[where.second].push_back(ns);
    out.by_step[where.first][where.second] = ns;
  }
  return out;
}

// Present in most steps: one delay per microbatch it shows in, at its median excess (one delay
// for all microbatches when they agree within 10 %).
void every_step_delays(Cause& cause, const stepmodel::DelayInjection& base,
                       const SpreadExcess& spread, int steady_steps) {
  std::vector<std::pair<int, double>> levels;
  for (const auto& [mb, values] : spread.by_microbatch) {
    if (2 * static_cast<int>(values.size()) < steady_steps) continue;
    levels.emplace_back(mb, round_ms(median_of(values) / 1e6));
  }
  const bool all_alike =
      levels.size() > 1 && std::all_of(levels.begin(), levels.end(), [&](const auto& l) {
        return std::abs(l.second - levels.front().second) <= 0.1 * levels.front().second;
      });
  if (all_alike) {
    std::vector<double> values;
    for (const auto& l : levels) values.push_back(l.second);
    stepmodel::DelayInjection d = base;
    d.ms = round_ms(median_of(values));
    cause.delays.push_back(d);
  } else {
    for (const auto& [mb, value] : levels) {
      stepmodel::DelayInjection d = base;
      d.microbatch = mb;
      d.ms = value;
      cause.delays.push_back(d);
    }
  }
  cause.where_from = "median excess over the peers in " + std::to_string(spread.by_step.size()) +
                     " of " + std::to_string(steady_steps) + " steady steps";
}

// A hiccup of a few steps: the same steps of the reduced run. What it did to the step is the
// step's growth over the median step; where the phase's excess is larger (the peers' work went
// on meanwhile: ranks sharing cores ran faster while it stalled), the delay is that growth,
// which is what the reduced experiment must reproduce.
void hiccup_delays(Cause& cause, const stepmodel::DelayInjection& base, const Timeline& t,
                   const SpreadExcess& spread, int steady_steps) {
  const std::map<int, int> position = step_positions(t);
  const double median_ms = median_step_ms(t.steps);
  int capped = 0;
  for (const auto& [step, mbs] : spread.by_step) {
    const int at = position.at(step);
    double total_ns = 0;
    for (const auto& [mb, ns] : mbs) total_ns += ns;
    const double growth_ns =
        std::max(0.0, (t.steps[static_cast<std::size_t>(at)].time_ms - median_ms) * 1e6);
    const double scale = total_ns > growth_ns && total_ns > 0 ? growth_ns / total_ns : 1.0;
    if (scale < 1) {
      ++capped;
      cause.capped_growth_ms[at] = round_ms(growth_ns / 1e6);
    }
    for (const auto& [mb, ns] : mbs) {
      stepmodel::DelayInjection d = base;
      d.microbatch = mb;
      d.step_first = d.step_last = at;
      d.ms = round_ms(ns * scale / 1e6);
      cause.delays.push_back(d);
    }
  }
  cause.where_from = "excess over the peers in " + std::to_string(spread.by_step.size()) + " of " +
                     std::to_string(steady_steps) +
                     " steady steps only, injected in the same steps (by position)";
  if (capped > 0) {
    cause.where_from += "; in " + std::to_string(capped) +
                        " of them set to the step's own growth over the median step (the "
                        "peers' work went on meanwhile), simulated so the model's step grows "
                        "as much";
  }
}

Cause straggler_cause(const Timeline& t, const PhaseStats& ps, const StragglerKey& key,
                      const std::vector<const StepAttribution*>& blamed, int steady_steps,
                      int ranks) {
  Cause cause;
  cause.kind = "straggler";
  cause.original_rank = key.rank;
  cause.rank = std::min(key.rank, ranks - 1);
  cause.phase = key.phase;
  cause.layer = key.layer;
  const SpreadExcess spread = spread_excess(t, ps, key, blamed);
  stepmodel::DelayInjection base;
  base.rank = cause.rank;
  base.phase = key.phase;
  base.layer = key.layer;
  if (2 * static_cast<int>(spread.by_step.size()) >= steady_steps) {
    every_step_delays(cause, base, spread, steady_steps);
  } else {
    hiccup_delays(cause, base, t, spread, steady_steps);
  }
  return cause;
}

// The typical time of (phase, layer) per instance, from a calibration: median over its
// occurrences in the step (microbatches).
std::map<std::pair<std::string, int>, double> typical_by_phase(const Calibration& c) {
  std::map<std::pair<std::string, int>, std::vector<double>> values;
  for (const CalibratedPhase& p : c.phases) {
    if (!p.phase.collective) values[{p.phase.name, p.phase.layer}].push_back(p.phase.ms);
  }
  std::map<std::pair<std::string, int>, double> out;
  for (auto& [key, v] : values) out[key] = median_of(v);
  return out;
}

double run_to_run_cv(const std::vector<double>& medians) {
  return std::round(robust_cv(medians, 2) * 1e4) / 1e4;
}

void check_pair(const storage::RunData& baseline, const storage::RunData& candidate,
                const ReductionOptions& options) {
  if (baseline.run_id != 0 && baseline.run_id == candidate.run_id) {
    throw UsageError("run " + std::to_string(baseline.run_id) +
                     " is both the baseline and the candidate: reduce reproduces the change "
                     "from one run to another; pass two different runs (see `culprit runs`)");
  }
  if (baseline.ranks != candidate.ranks) {
    throw UsageError("runs " + std::to_string(baseline.run_id) + " and " +
                     std::to_string(candidate.run_id) + " have " + std::to_string(baseline.ranks) +
                     " and " + std::to_string(candidate.ranks) +
                     " ranks: reduce compares two runs of the same job; pick a pair with equal "
                     "rank counts");
  }
  if (options.ranks < 0 || options.ranks > baseline.ranks) {
    throw UsageError("--ranks " + std::to_string(options.ranks) +
                     ": a reduced experiment has 1 to " + std::to_string(baseline.ranks) +
                     " ranks (the job's own count at most)");
  }
}

// The run-to-run noise of the baseline's configuration, and its level: the run is one draw of
// the configuration's drift, scaled onto the median of its run medians (3 runs or more).
void set_level(Reduction& r, const std::vector<double>& baseline_config_medians) {
  r.run_cv = run_to_run_cv(baseline_config_medians);
  r.run_cv_runs = static_cast<int>(baseline_config_medians.size());
  if (baseline_config_medians.size() >= 3 && r.baseline.median_step_ms > 0) {
    r.level_scale = median_of(baseline_config_medians) / r.baseline.median_step_ms;
    for (CalibratedPhase& p : r.baseline.phases) {
      p.phase.ms = round_ms(p.phase.ms * r.level_scale);
      p.phase.gap_ms = round_ms(p.phase.gap_ms * r.level_scale);
    }
    r.baseline.schedule_ms *= r.level_scale;
  }
}

// A cause must matter to the step: present in most steps, from 0.5 % of the step; a hiccup of
// a few steps, from 5 % of the step in the steps it hits (smaller ones are noise there). False
// when it does not; a hiccup keeps only the steps where it does.
bool keep_cause(Cause& cause, double median_step_ms, double floor_ms) {
  const bool every_step = !cause.delays.empty() && cause.delays.front().step_first < 0;
  std::map<int, double> per_step;
  for (const auto& d : cause.delays) per_step[d.step_first] += d.ms;
  double largest = 0;
  for (const auto& [step, ms] : per_step) largest = std::max(largest, ms);
  const double needed = std::max((every_step ? 0.005 : 0.05) * median_step_ms, floor_ms);
  if (cause.delays.empty() || largest < needed) return false;
  if (!every_step) {
    std::erase_if(cause.delays, [&](const auto& d) { return per_step[d.step_first] < needed; });
  }
  return true;
}

// Whether the calibrated schedule has a phase of that name: a delay on any other is refused by
// the workload that replays the model (stepmodel::delay_phase_names).
bool in_model(const Calibration& model, const std::string& phase) {
  return std::any_of(model.phases.begin(), model.phases.end(),
                     [&](const CalibratedPhase& p) { return p.phase.name == phase; });
}

// A straggler in a phase the model left out (present in only some of the baseline's steps, as
// a PMPI run's MPI_Sendrecv of the steps that exchange atoms): said, not injected.
std::string not_in_model(const Cause& cause) {
  std::map<int, double> per_step;  // step_first -1: every step
  for (const auto& d : cause.delays) per_step[d.step_first] += d.ms;
  std::string amount;
  for (const auto& [step, ms] : per_step) {
    amount += (amount.empty() ? "" : ", ") + fixed(ms) + " ms" +
              (step < 0 ? " per step" : " in step " + std::to_string(step));
  }
  return "rank " + std::to_string(cause.original_rank) + " " + cause.phase +
         (cause.layer >= 0 ? " layer " + std::to_string(cause.layer) : "") + " " + amount +
         ": the model has no " + cause.phase +
         " (the baseline run has it in only some steps, or not at all); add it to model.schedule "
         "to test it";
}

// Stragglers: the steps' first divergences, grouped by (rank, phase, layer).
void add_stragglers(Reduction& r, const Timeline& t, const RunAttribution& cand_attr,
                    int steady_steps, double floor_ms) {
  std::map<StragglerKey, std::vector<const StepAttribution*>> groups;
  for (const StepAttribution& s : cand_attr.steps) {
    const Culprit& c = s.decomposition.culprit;
    if (s.decomposition.warmup || !c.found) continue;
    if (c.excess_ns / 1e6 < floor_ms) continue;
    groups[{c.rank, c.phase, c.layer}].push_back(&s);
  }
  const PhaseStats ps = phase_stats(t, time_collectives(t));
  for (const auto& [key, steps] : groups) {
    Cause cause = straggler_cause(t, ps, key, steps, steady_steps, r.ranks);
    if (!keep_cause(cause, r.baseline.median_step_ms, floor_ms)) continue;
    if (!in_model(r.baseline, cause.phase)) {
      r.not_reproduced.push_back(not_in_model(cause));
      continue;
    }
    for (const ExplainedComponent& e : r.original.components) {
      if (e.category == Category::kStraggler && e.rank == key.rank && e.phase == key.phase &&
          e.layer == key.layer) {
        cause.component_ms = e.ms;
      }
    }
    if (cause.rank != cause.original_rank) {
      r.notes.push_back("rank " + std::to_string(cause.original_rank) + " is beyond " +
                        std::to_string(r.ranks) + " ranks: its delay goes to rank " +
                        std::to_string(cause.rank) +
                        " (a delay on one rank makes every data-parallel peer wait whatever the "
                        "rank count)");
    }
    r.causes.push_back(std::move(cause));
  }
}

// Hiccups: the steps they hit, and how much longer the candidate's step was there.
void note_hiccups(Reduction& r, const Timeline& t) {
  std::set<int> hit;
  for (const Cause& cause : r.causes) {
    for (const auto& d : cause.delays) {
      for (int p = d.step_first; p >= 0 && p <= d.step_last; ++p) hit.insert(p);
    }
  }
  const double median = median_step_ms(t.steps);
  double sum = 0;
  for (int p : hit) {
    if (p >= static_cast<int>(t.steps.size())) continue;
    r.excess_steps.push_back(p);
    sum += t.steps[static_cast<std::size_t>(p)].time_ms - median;
  }
  if (!r.excess_steps.empty()) {
    r.step_excess_ms = round_ms(sum / static_cast<double>(r.excess_steps.size()));
  }
}

// Exposed communication and host-gap changes: no delay reproduces them; said, left out.
void note_not_delays(Reduction& r, const ExplainedComponent& e) {
  if (e.category == Category::kExposedComm) {
    r.not_reproduced.push_back("exposed communication " + fixed(e.ms) +
                               " ms: a transfer-time change is not a delay; edit the "
                               "collectives' ms in model.schedule to test it");
  }
  if (e.category == Category::kHostGap) {
    r.not_reproduced.push_back("host gaps " + fixed(e.ms) +
                               " ms: edit the phases' gap_ms in model.schedule to test it");
  }
}

// Typical shifts: every rank slower in a phase (a slower kernel in the new version).
void add_typical_shifts(Reduction& r, const Calibration& cand_shape,
                        const ReductionOptions& options, double floor_ms) {
  const double delta = r.original.delta_ms;
  const auto base_typical = typical_by_phase(r.baseline);
  const auto cand_typical = typical_by_phase(cand_shape);
  for (const ExplainedComponent& e : r.original.components) {
    const bool large =
        std::abs(e.ms) >= floor_ms && std::abs(e.ms) >= options.min_share * std::abs(delta);
    if (large) note_not_delays(r, e);
    if (e.category != Category::kTypical || !large) continue;
    auto b = base_typical.find({e.phase, e.layer});
    auto c = cand_typical.find({e.phase, e.layer});
    if (b == base_typical.end() || c == cand_typical.end()) continue;
    const double per_instance = round_ms(c->second - b->second);
    if (per_instance <= 0) {
      r.not_reproduced.push_back(
          e.phase + (e.layer >= 0 ? " layer " + std::to_string(e.layer) : "") + " typical time " +
          fixed(e.ms) + " ms (faster): a delay cannot make a phase faster");
      continue;
    }
    Cause cause;
    cause.kind = "typical_shift";
    cause.phase = e.phase;
    cause.layer = e.layer;
    cause.component_ms = e.ms;
    stepmodel::DelayInjection d;
    d.rank = stepmodel::kEveryRank;
    d.phase = e.phase;
    d.layer = e.layer;
    d.ms = per_instance;
    cause.delays.push_back(d);
    cause.where_from = "every rank's typical time: candidate " + fixed(c->second, 3).substr(1) +
                       " ms vs baseline " + fixed(b->second, 3).substr(1) + " ms per instance";
    r.causes.push_back(std::move(cause));
  }
}

}  // namespace

Reduction reduce_runs(const storage::RunData& baseline, const storage::RunData& candidate,
                      const ReductionOptions& options,
                      const std::vector<double>& baseline_config_medians) {
  check_pair(baseline, candidate, options);
  Reduction r;
  r.baseline = calibrate(baseline);
  const Calibration cand_shape = calibrate(candidate);
  r.ranks = options.ranks > 0 ? options.ranks : baseline.ranks;
  set_level(r, baseline_config_medians);
  const RunAttribution base_attr = attribute_run(baseline);
  const RunAttribution cand_attr = attribute_run(candidate);
  r.original = explain(median_step("run " + std::to_string(baseline.run_id), {base_attr}),
                       median_step("run " + std::to_string(candidate.run_id), {cand_attr}));
  const double floor_ms = std::max(0.05, 0.005 * r.baseline.median_step_ms);
  const Timeline t = build_timeline(candidate);
  add_stragglers(r, t, cand_attr, cand_shape.steady_steps, floor_ms);
  note_hiccups(r, t);
  add_typical_shifts(r, cand_shape, options, floor_ms);
  if (r.causes.empty()) {
    throw UsageError("nothing to reduce: run " + std::to_string(candidate.run_id) + " vs run " +
                     std::to_string(baseline.run_id) + " changes the median step by " +
                     fixed(r.original.delta_ms) +
                     " ms and attribution finds no straggler or typical shift beyond noise "
                     "(check `culprit attribute` of the candidate run)");
  }
  return r;
}

std::vector<Reproduced> reproduction(const StoredExplanations& reduced, double original_delta_ms) {
  std::vector<Reproduced> out;
  for (const Explanation& e : reduced.explanations) {
    Reproduced r;
    r.label = e.candidate_label;
    r.delta_ms = e.delta_ms;
    r.share = std::abs(original_delta_ms) >= 0.01 ? e.delta_ms / original_delta_ms
                                                  : std::numeric_limits<double>::quiet_NaN();
    r.remainder_ms = std::round((original_delta_ms - e.delta_ms) * 100.0) / 100.0;
    out.push_back(r);
  }
  return out;
}

}  // namespace culprit::reduce
