#include "culprit/analysis/attribution.hpp"
#include "runfile/meta_keys.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/robust.hpp"
#include "culprit/analysis/timeline.hpp"
#include "culprit/analysis/windows.hpp"

namespace culprit::analysis {
namespace {

// Fills the per-step view of the collective that made the most ranks wait the longest.
void decisive_collective(const std::vector<CollectiveTiming>& collectives,
                         const std::vector<int>& arrivers, const PhaseStats& stats,
                         StepAttribution& s) {
  const CollectiveTiming* worst = nullptr;
  std::size_t worst_index = 0;
  for (std::size_t k = 0; k < collectives.size(); ++k) {
    const CollectiveTiming& c = collectives[k];
    if (c.step != s.decomposition.step) continue;
    if (!worst || c.total_wait_ns > worst->total_wait_ns) {
      worst = &c;
      worst_index = k;
    }
  }
  if (!worst) return;
  s.last_arriver = arrivers[worst_index];
  s.last_arriver_decided = worst->decided;
  s.collective = worst->seq;
  s.total_wait_ns = worst->total_wait_ns;
  std::vector<double> waits;
  for (std::size_t r = 0; r < worst->wait_ns.size(); ++r) {
    const double w = worst->wait_ns[r];
    if (w > stats.gap_threshold_ns(static_cast<int>(r))) waits.push_back(w);
  }
  s.waiting_ranks = static_cast<int>(waits.size());
  s.median_wait_ns = waits.empty() ? 0.0 : median_inplace(waits);
}

// Whether a step's first divergence is the run's culprit; layer -1 means "in every layer".
bool same_cause(const Culprit& c, const RunCulprit& culprit) {
  return c.found && c.rank == culprit.rank && c.phase == culprit.phase &&
         (culprit.layer < 0 || c.layer == culprit.layer);
}

// A real cause stands clear of the noise threshold in the steps it is blamed; a hiccup, or a
// rank's small systematic asymmetry, just crosses it. One (rank, phase, layer) needs a median
// excess of 2 thresholds: a torch DDP control (2 ranks, 2.2 ms steps) blamed rank 0's layer1 in
// 8 of 12 steps at 1.25 (+0.02 ms), where the 1 ms delays of analysis.small_world_sim stand at
// 3.0-3.4 and torch's injected ones at 165-179. Pooled over layers it needs 3: contention that
// wanders from layer to layer on one busy rank could add up to "every layer".
bool clearly_beyond_noise(const std::vector<const Culprit*>& list, double thresholds) {
  std::vector<double> ratio;
  for (const Culprit* c : list)
    ratio.push_back(c->threshold_ns > 0 ? c->excess_ns / c->threshold_ns : kNaN);
  std::erase_if(ratio, [](double r) { return std::isnan(r); });
  return !ratio.empty() && median_inplace(ratio) >= thresholds;
}

RunCulprit run_culprit(const std::vector<StepAttribution>& steps, double min_share) {
  // A cause repeats in the same place; contention and hiccups move around. A delay in every
  // layer of a phase is first seen in whichever layer noise makes earliest, so when no single
  // (rank, phase, layer) repeats often enough the layers of compute phases are pooled:
  // (rank, phase, every layer).
  using Key = std::tuple<int, std::string, int>;
  RunCulprit result;
  for (const StepAttribution& s : steps) result.steady_steps += s.decomposition.warmup ? 0 : 1;
  const double needed = std::max(1.0, std::ceil(min_share * result.steady_steps));
  for (const bool pool_layers : {false, true}) {
    std::map<Key, std::vector<const Culprit*>> blamed;
    for (const StepAttribution& s : steps) {
      const Culprit& c = s.decomposition.culprit;
      if (s.decomposition.warmup || !c.found) continue;
      // A late call at a collective keeps its bucket: lateness moving from bucket to bucket is
      // what noise between two ranks looks like, not one cause.
      blamed[{c.rank, c.phase, pool_layers && !c.late_call ? -1 : c.layer}].push_back(&c);
    }
    const std::vector<const Culprit*>* best = nullptr;
    const Key* best_key = nullptr;
    double best_excess = 0;
    for (const auto& [key, list] : blamed) {
      double excess = 0;
      for (const Culprit* c : list) excess += c->excess_ns;
      if (!best || list.size() > best->size() ||
          (list.size() == best->size() && excess > best_excess)) {
        best = &list;
        best_key = &key;
        best_excess = excess;
      }
    }
    if (!best || static_cast<double>(best->size()) < needed) continue;
    if (!clearly_beyond_noise(*best, pool_layers ? 3.0 : 2.0)) continue;
    auto most_common = [&](auto field) {
      std::map<int, int> counts;
      for (const Culprit* c : *best) ++counts[field(*c)];
      return std::max_element(counts.begin(), counts.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; })
          ->first;
    };
    const Culprit& first = *best->front();
    result.found = true;
    result.rank = first.rank;
    result.phase = first.phase;
    result.layer = std::get<2>(*best_key);
    result.microbatch = most_common([](const Culprit& c) { return c.microbatch; });
    result.collective = most_common([](const Culprit& c) { return c.collective; });
    result.step = first.step;
    std::vector<double> excess;
    for (const Culprit* c : *best) excess.push_back(c->excess_ns / 1e6);
    result.excess_ms = median_inplace(excess);
    result.steps_blamed = static_cast<int>(best->size());
    return result;
  }
  return result;
}

Symptom symptom_of(const std::vector<StepAttribution>& steps, const RunCulprit& culprit) {
  std::vector<double> ranks, waits, totals;
  for (const StepAttribution& s : steps) {
    if (s.decomposition.warmup || !same_cause(s.decomposition.culprit, culprit)) continue;
    ranks.push_back(s.waiting_ranks);
    waits.push_back(s.median_wait_ns / 1e6);
    totals.push_back(s.total_wait_ns / 1e6);
  }
  Symptom symptom;
  if (ranks.empty()) return symptom;
  symptom.waiting_ranks = static_cast<int>(std::lround(median_inplace(ranks)));
  symptom.median_wait_ms = median_inplace(waits);
  symptom.total_wait_ms = median_inplace(totals);
  return symptom;
}

// Whether the culprit rank's cost is mostly time it spent waiting for a CPU beyond what its
// peers waited, in the very steps it was blamed for: then the straggler is the machine (another
// process on its core), not the code. Cost per step: the what-if saving (the step replayed
// with the rank at the peers' median), else its excess in the blamed phase. A rank's CPU wait
// counts only outside its collectives: where the stepping thread timed them itself (stepclock),
// the wait measured inside them is taken out; elsewhere its idle wait at collectives
// (idle_wait_ns_by_step) is. On a loaded machine the peer that spins in the all-reduce while the
// straggler is parked behind another process waits for a CPU too, and that wait must not cancel
// the straggler's (a hog on each rank's core: 5 of 9 controls blamed as code before); nor may the
// straggler's own wait in a long transfer count as its lateness (4 sleeping ranks on 2 cores
// beside a busy one: a 20 ms sleep labelled the environment, every rank waiting ~30 ms a step
// inside the all-reduces).
std::string environment_of(const Timeline& timeline,
                           const std::vector<CollectiveTiming>& collectives,
                           const RunAttribution& a) {
  const storage::RunData& run = *timeline.run;
  const RunCulprit& culprit = a.culprit;
  const auto& wait = run.step_cpu_wait_ns;
  const auto r = static_cast<std::size_t>(culprit.rank);
  if (culprit.rank < 0 || r >= wait.size() || wait[r].empty()) return {};
  const std::vector<std::vector<double>> idle = idle_wait_ns_by_step(timeline, collectives);
  const auto& inside = run.step_collective_wait_ns;
  bool measured = true;  // every wait of the culprit's rank counted is the measured form
  // The CPU wait that could have delayed `rank` in `step`; NaN where it was not recorded.
  auto at = [&](std::size_t rank, int step) {
    const auto& w = wait[rank];
    if (step < 0 || static_cast<std::size_t>(step) >= w.size()) return kNaN;
    const auto s = static_cast<std::size_t>(step);
    if (std::isnan(w[s])) return kNaN;
    if (rank < inside.size() && s < inside[rank].size() && !std::isnan(inside[rank][s]))
      return std::max(0.0, w[s] - inside[rank][s]);
    if (rank == r) measured = false;
    const double idle_ns = rank < idle.size() && s < idle[rank].size() ? idle[rank][s] : 0.0;
    return std::max(0.0, w[s] - idle_ns);
  };
  std::vector<double> excess_wait, cost, own_wait;
  for (const StepAttribution& s : a.steps) {
    if (s.decomposition.warmup || !same_cause(s.decomposition.culprit, culprit)) continue;
    const int step = s.decomposition.step;
    const double own = at(r, step);
    std::vector<double> peers;
    for (std::size_t p = 0; p < wait.size(); ++p) {
      const double w = p == r ? kNaN : at(p, step);
      if (!std::isnan(w)) peers.push_back(w);
    }
    if (std::isnan(own) || peers.empty()) continue;
    own_wait.push_back(own / 1e6);
    excess_wait.push_back((own - median_inplace(peers)) / 1e6);
    const double saved = s.decomposition.time_ns / 1e6 - s.whatif_ms;
    cost.push_back(std::isnan(saved) ? s.decomposition.culprit.excess_ns / 1e6 : saved);
  }
  if (excess_wait.size() < 2) return {};
  const double waited = median_inplace(excess_wait);
  const double costs = median_inplace(cost);
  // Half the cost, and at least 1 % of the step: less than that is scheduling jitter.
  if (!(costs > 0) || waited < 0.5 * costs || waited < 0.01 * a.median_step_ms) return {};
  return fmt::format(
      "in the steps it was blamed for, rank {} waited for a CPU {:.2f} ms per step more than its "
      "peers (its own wait {:.2f} ms per step, counted {}), {:.0f} % of the {:.2f} ms it cost - "
      "another process shared its core; this is the environment, not the code (bind the ranks "
      "away from other work, or use a quieter machine, and measure again)",
      run.rank_id(culprit.rank), waited, median_inplace(own_wait),
      measured ? "outside its collectives" : "beyond its idle waits at collectives",
      100 * std::min(1.0, waited / costs), costs);
}

// A culprit pooled over the layers of a phase (layer -1 of a phase that has layers) claims a cause
// in every layer. When fewer than half of the rank's steady instances of that phase diverged,
// and its other phases diverged at least half as often, the rank was slow now and then in every
// phase, not in this one: the machine (interrupts, timers, a virtual CPU descheduled by its host:
// delays its CPU waits do not show), not the code. Measured: a 2-rank mpirun control beside a
// busy core (CI rehearsal, 2026-12-07) blamed rank 1 gemm.fwd in 10/16 steps, a different layer
// each time, with 19 of its 128 gemm.fwd instances diverged and 39 of its 272 others (15 %, 14 %);
// the injected 3 ms delays of the same sweep diverged in 127-128 of 128, their ranks' other
// phases in 1-14 %. Empty when the culprit stands.
constexpr double kEveryLayerShare = 0.5;  // of the phase's instances, for a cause in every layer
constexpr double kAlikeShare = 0.5;       // the other phases' share against the phase's: alike
std::string scattered_slowness(const Timeline& timeline, const PhaseStats& stats,
                               const RunCulprit& culprit) {
  const storage::RunData& run = *timeline.run;
  const int name = run.name_index(culprit.phase);
  if (culprit.layer >= 0 || name < 0) return {};
  int instances = 0, diverged = 0, other_instances = 0, other_diverged = 0;
  bool layered = false;
  for (std::size_t e = 0; e < run.events.size(); ++e) {
    const storage::Event& x = run.events[e];
    if (x.rank != culprit.rank || x.step < run.warmup_steps || !is_phase(x)) continue;
    const int d = stats.diverges(timeline, static_cast<EventIndex>(e)) ? 1 : 0;
    if (x.name == name) {
      layered = layered || x.layer >= 0;
      ++instances;
      diverged += d;
    } else {
      ++other_instances;
      other_diverged += d;
    }
  }
  if (!layered || other_instances == 0) return {};
  const double share = static_cast<double>(diverged) / instances;
  const double other_share = static_cast<double>(other_diverged) / other_instances;
  if (share >= kEveryLayerShare || other_share < kAlikeShare * share) return {};
  return fmt::format(
      "rank {} diverged in {} of its {} {} instances ({:.0f} %), a different layer each step, and "
      "in its other phases too ({} of {}, {:.0f} %): the rank was slow now and then in every "
      "phase, not in this one - the machine (interrupts, timers, a virtual CPU its host "
      "descheduled: delays its CPU waits do not show), not the code (use a quieter machine, and "
      "measure again)",
      run.rank_id(culprit.rank), diverged, instances, culprit.phase, 100 * share, other_diverged,
      other_instances, 100 * other_share);
}

// Below this share of its excess, what the peers waited for a divergence is no cost: an injected
// delay is waited for in full (times the waiting ranks); a LAMMPS control on a loaded host blamed
// rank 0 compute>MPI_Wait +0.20 ms in 31 of 60 steps while its peer waited 0.02 ms a step.
constexpr double kMinCostShare = 0.25;

// Why the run's culprit is no cause (empty when it is): the walk reached it through a collective
// (the decisive one of its steps), and the ranks waited there, summed and as a median over the
// steps it was blamed for (the symptom), less than a quarter of its median excess. A culprit
// reached without a collective (the last work of the last rank to finish) is kept: its cost is
// the step's end, not a wait.
std::string costless_divergence(const storage::RunData& run, const RunAttribution& a) {
  const RunCulprit& c = a.culprit;
  if (!c.found || c.collective < 0) return {};
  if (a.symptom.total_wait_ms >= kMinCostShare * c.excess_ms) return {};
  return fmt::format(
      "rank {} {}{} diverged by {:+.2f} ms in {}/{} steps, but the ranks waited for it {:.2f} ms "
      "a step in all at collective #{} (less than a quarter of that): the ranks split the work "
      "differently between phases, or lateness alternates between them; no cause",
      run.rank_id(c.rank), c.phase, c.layer >= 0 ? fmt::format(" layer {}", c.layer) : "",
      c.excess_ms, c.steps_blamed, c.steady_steps, a.symptom.total_wait_ms, c.collective);
}

// meta.incomplete_collectives of a partial import: "step:seq step:seq ...".
std::set<std::pair<int, int>> incomplete_collectives(const storage::RunData& run) {
  std::set<std::pair<int, int>> result;
  auto it = run.meta.find(runfile::meta::kIncompleteCollectives);
  if (it == run.meta.end()) return result;
  std::istringstream in(it->second);
  std::string item;
  while (in >> item) {
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos) continue;
    try {
      result.insert({std::stoi(item.substr(0, colon)), std::stoi(item.substr(colon + 1))});
    } catch (const std::exception&) {
      // not a step:seq pair: ignored (the list is ours; nothing else writes it)
    }
  }
  return result;
}

// A partial import: a step's culprit stands only when the walk reached it through a collective
// every member of which was imported; the last arriver of a collective with missing members is
// never decided.
void undecide_partial(const storage::RunData& run, const std::vector<CollectiveTiming>& collectives,
                      RunAttribution& result) {
  result.partial = true;
  std::set<std::pair<int, int>> incomplete = incomplete_collectives(run);
  if (!run.meta.count(runfile::meta::kIncompleteCollectives)) {
    // Imported before the list was written: every collective may miss members.
    for (const CollectiveTiming& c : collectives) incomplete.insert({c.step, c.seq});
  }
  for (const CollectiveTiming& c : collectives)
    result.incomplete_collectives += incomplete.count({c.step, c.seq}) ? 1 : 0;
  result.undecided_steps = 0;
  int undecided = 0;
  int steady = 0;
  for (StepAttribution& s : result.steps) {
    if (s.last_arriver >= 0 && incomplete.count({s.decomposition.step, s.collective}))
      s.last_arriver_decided = false;
    if (!s.decomposition.warmup) {
      ++steady;
      if (s.last_arriver >= 0 && !s.last_arriver_decided) ++result.undecided_steps;
    }
    Culprit& c = s.decomposition.culprit;
    if (!c.found) continue;
    if (c.collective < 0) {
      s.cannot_decide = fmt::format(
          "rank {} {} diverges, but no collective links it to the ranks that were not imported: "
          "one of them may have been later",
          run.rank_id(c.rank), c.phase);
    } else if (incomplete.count({c.collective_step, c.collective})) {
      s.cannot_decide = fmt::format(
          "rank {} {} arrived last among the imported ranks at collective #{} of step {}, whose "
          "other members were not imported",
          run.rank_id(c.rank), c.phase, c.collective, c.collective_step);
    } else {
      continue;
    }
    c = Culprit();
    if (!s.decomposition.warmup) ++undecided;
  }
  if (undecided == 0 && result.incomplete_collectives > 0) {
    // No imported rank diverges; a rank that was not imported still may have.
    result.cannot_decide = fmt::format(
        "partial run: no imported rank diverges, but {} collective(s) have members that were "
        "not imported, and one of those may be the straggler; import every rank of the job (or "
        "of the process group) to decide",
        result.incomplete_collectives);
  } else if (undecided > 0) {
    result.cannot_decide = fmt::format(
        "partial run: in {} of {} steady steps the culprit was reached through a collective "
        "whose members were not all imported (a missing rank may have arrived later); import "
        "every rank of the job (or of the process group) to decide",
        undecided, steady);
  }
}

// No culprit after all: its symptom goes with it.
void drop_culprit(RunAttribution& a) {
  const int steady = a.culprit.steady_steps;
  a.culprit = RunCulprit();
  a.culprit.steady_steps = steady;
  a.symptom = Symptom();
}

}  // namespace

RunAttribution attribute_run(const storage::RunData& run, const AttributionOptions& options) {
  const Timeline timeline = build_timeline(run);
  const std::vector<CollectiveTiming> collectives = time_collectives(timeline);
  const PhaseStats stats = phase_stats(timeline, collectives, options.noise);
  const std::vector<int> arrivers = critical_arrivers(timeline, collectives, stats);
  std::vector<StepDecomposition> decompositions =
      decompose_steps(timeline, collectives, stats, arrivers);

  RunAttribution result;
  result.efficiency =
      efficiency(timeline, collectives, decompositions, options.peak_flops_per_device);
  result.run_id = run.run_id;
  result.ranks = run.ranks;
  result.warmup_steps = run.warmup_steps;
  result.median_step_ms = median_step_ms(timeline.steps);
  result.noise_note = stats.noise_note;
  std::map<int, int> last_counts;
  for (StepDecomposition& d : decompositions) {
    StepAttribution s;
    s.decomposition = std::move(d);
    s.whatif_ms = kNaN;
    decisive_collective(collectives, arrivers, stats, s);
    if (!s.decomposition.warmup && s.last_arriver >= 0) {
      ++last_counts[s.last_arriver];
      if (!s.last_arriver_decided) ++result.undecided_steps;
    }
    result.steps.push_back(std::move(s));
  }
  if (auto it = run.meta.find(runfile::meta::kPartial); it != run.meta.end() && it->second == "1")
    undecide_partial(run, collectives, result);
  for (const auto& [rank, count] : last_counts)
    result.last_arriver_counts.emplace_back(rank, count);
  std::stable_sort(result.last_arriver_counts.begin(), result.last_arriver_counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });

  result.culprit = run_culprit(result.steps, options.culprit_min_step_share);
  if (result.culprit.found) result.cannot_decide.clear();
  result.symptom = symptom_of(result.steps, result.culprit);
  result.costless_note = costless_divergence(run, result);
  if (!result.costless_note.empty()) drop_culprit(result);

  std::vector<bool> steady(collectives.size());
  for (std::size_t k = 0; k < collectives.size(); ++k)
    steady[k] = collectives[k].step >= run.warmup_steps;
  result.costs = delay_costs(timeline, collectives, stats, arrivers, steady);

  if (result.culprit.found) {
    result.what_if = what_if_rank_typical(timeline, collectives, stats, result.culprit.rank);
    if (result.what_if.complete) {
      for (std::size_t s = 0; s < result.steps.size(); ++s)
        result.steps[s].whatif_ms = result.what_if.step_ms[s];
    }
  }
  if (result.culprit.found) {
    result.culprit.environment = environment_of(timeline, collectives, result);
    if (result.culprit.environment.empty())
      result.culprit.environment = scattered_slowness(timeline, stats, result.culprit);
  }
  result.activity = sampled_activity(timeline, options.sample_period_s);

  for (std::size_t r = 0; r < timeline.alignment.size(); ++r) {
    const RankAlignment& a = timeline.alignment[r];
    result.alignment.max_uncertainty_ns =
        std::max(result.alignment.max_uncertainty_ns, a.uncertainty_ns);
    if (a.model_contradicted) result.alignment.contradicted_ranks.push_back(static_cast<int>(r));
  }
  for (const CollectiveTiming& c : collectives)
    result.alignment.undecided_collectives += c.decided ? 0 : 1;
  if (run.rank_ids.empty()) return result;
  return with_ranks(std::move(result), [&](int position) { return run.rank_id(position); });
}

}  // namespace culprit::analysis
