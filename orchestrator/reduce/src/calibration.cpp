#include "culprit/reduce/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/robust.hpp"
#include "culprit/analysis/timeline.hpp"
#include "culprit/common/median.hpp"
#include "culprit/errors.hpp"

namespace culprit::reduce {

using analysis::build_timeline;
using analysis::CollectiveTiming;
using analysis::EventIndex;
using analysis::median_step_ms;
using analysis::robust_cv;
using analysis::time_collectives;
using analysis::Timeline;
namespace {

// A phase within a step: what it is, plus its occurrence among equal ones (imported traces
// repeat an op name many times in one step).
using PhaseKey = std::tuple<storage::EventKind, std::uint16_t, int, int, int, int>;

PhaseKey key_of(const storage::Event& e, int occurrence) {
  return {e.kind, e.name, e.microbatch, e.layer, e.seq, occurrence};
}

bool is_phase_or_collective(const storage::Event& e) {
  return e.kind == storage::EventKind::kCompute || e.kind == storage::EventKind::kCollective ||
         e.kind == storage::EventKind::kHost;
}

// Per rank and steady step: the events of the step keyed like the template.
struct Instance {
  int rank = 0;
  std::size_t step = 0;  // index into Timeline::steps
  std::map<PhaseKey, EventIndex> events;
  // Pieces of a phase that only some instances have (an import splits a region around what
  // it holds, a varying number of times): their compute time and last end, folded into the
  // template piece of the same phase that precedes them.
  std::map<PhaseKey, double> folded_ns;
  std::map<PhaseKey, std::int64_t> folded_end;
};

// A phase ignoring its occurrence and microbatch: the pieces of one region.
std::tuple<storage::EventKind, std::uint16_t, int, int> family_of(const PhaseKey& k) {
  return {std::get<0>(k), std::get<1>(k), std::get<3>(k), std::get<4>(k)};
}

std::vector<EventIndex> step_phases(const Timeline& t, int rank, int step) {
  std::vector<EventIndex> out;
  for (EventIndex e : t.by_begin[static_cast<std::size_t>(rank)]) {
    const storage::Event& ev = t.event(e);
    if (ev.step == step && is_phase_or_collective(ev)) out.push_back(e);
  }
  return out;
}

std::map<PhaseKey, EventIndex> keyed(const Timeline& t, const std::vector<EventIndex>& events) {
  std::map<PhaseKey, EventIndex> out;
  std::map<PhaseKey, int> seen;
  for (EventIndex e : events) {
    const PhaseKey base = key_of(t.event(e), 0);
    const int occurrence = seen[base]++;
    out[key_of(t.event(e), occurrence)] = e;
  }
  return out;
}

double ms(double ns) {
  return std::round(ns / 1e3) / 1e3;  // microsecond resolution
}

// The phases present in most (rank, steady step) instances: their keys in the issue order of
// the first instance that has them all (rank 0's first steady step when the job repeats itself
// exactly, as a simulated or measured model does), and that instance's events of them.
struct Template {
  std::map<PhaseKey, int> presence;
  std::size_t instances = 0;
  std::vector<PhaseKey> order;
  std::vector<EventIndex> first;
  bool stable(const PhaseKey& key) const {
    auto it = presence.find(key);
    return it != presence.end() && 2 * it->second > static_cast<int>(instances);
  }
};

std::vector<Instance> steady_instances(const Timeline& t, const std::vector<std::size_t>& steady,
                                       int ranks) {
  std::vector<Instance> instances;
  for (std::size_t s : steady) {
    for (int r = 0; r < ranks; ++r) {
      instances.push_back({r, s, keyed(t, step_phases(t, r, t.steps[s].step)), {}, {}});
    }
  }
  return instances;
}

Template find_template(const Timeline& t, const std::vector<Instance>& instances,
                       std::int64_t run_id) {
  Template tpl;
  tpl.instances = instances.size();
  for (const Instance& in : instances) {
    for (const auto& [key, e] : in.events) ++tpl.presence[key];
  }
  const auto stable = [&](const PhaseKey& key) { return tpl.stable(key); };
  const int want = static_cast<int>(std::count_if(
      tpl.presence.begin(), tpl.presence.end(), [&](const auto& kv) { return stable(kv.first); }));
  const Instance* shape = &instances.front();
  for (const Instance& in : instances) {
    const int have = static_cast<int>(std::count_if(
        in.events.begin(), in.events.end(), [&](const auto& kv) { return stable(kv.first); }));
    if (have == want) {
      shape = &in;
      break;
    }
  }
  std::map<PhaseKey, int> seen;
  for (EventIndex e : step_phases(t, shape->rank, t.steps[shape->step].step)) {
    const PhaseKey key = key_of(t.event(e), seen[key_of(t.event(e), 0)]++);
    if (!stable(key)) continue;
    tpl.order.push_back(key);
    tpl.first.push_back(e);
  }
  if (tpl.first.empty()) {
    throw UsageError("run " + std::to_string(run_id) + " has no compute or collective event " +
                     "present in most of its steady steps: nothing to calibrate");
  }
  return tpl;
}

// Folds the pieces outside the template into the template piece of their phase before them
// (their compute time and last end); adds notes saying how many were folded and dropped.
void fold_pieces(const Timeline& t, const Template& tpl, std::vector<Instance>& instances,
                 std::vector<std::string>& notes) {
  int folded = 0, dropped = 0;
  for (Instance& in : instances) {
    for (const auto& [key, e] : in.events) {
      if (tpl.stable(key)) continue;
      const storage::Event& ev = t.event(e);
      const PhaseKey* host = nullptr;
      std::int64_t host_begin = 0;
      for (const PhaseKey& k : tpl.order) {
        auto it = in.events.find(k);
        if (it == in.events.end() || family_of(k) != family_of(key)) continue;
        const std::int64_t b = t.event(it->second).begin_ns;
        if (b <= ev.begin_ns && (host == nullptr || b >= host_begin)) {
          host = &k;
          host_begin = b;
        }
      }
      if (host == nullptr || ev.kind == storage::EventKind::kCollective) {
        ++dropped;
        continue;
      }
      ++folded;
      in.folded_ns[*host] += static_cast<double>(t.duration_ns(e));
      in.folded_end[*host] = std::max(in.folded_end[*host], ev.end_ns);
    }
    std::erase_if(in.events, [&](const auto& kv) { return !tpl.stable(kv.first); });
  }
  if (folded > 0) {
    notes.push_back(std::to_string(folded) +
                    " piece(s) of a phase present in only some steps are folded into the "
                    "piece of the same phase before them (their compute time added)");
  }
  if (dropped > 0) {
    notes.push_back(std::to_string(dropped) +
                    " event(s) present in only some steps, with no piece of the same phase "
                    "before them, are left out of the model");
  }
}

// Pass 1, per template phase: compute durations (folded pieces added), collectives' transfers
// and waits, and how often a collective overlaps the next phase.
struct PhaseSamples {
  std::vector<std::vector<double>> durations, transfers, waits;
  std::vector<int> overlapped, seen;
};

PhaseSamples sample_phases(const Timeline& t, const std::vector<Instance>& instances,
                           const std::vector<PhaseKey>& order,
                           const std::vector<CollectiveTiming>& timings) {
  std::map<std::tuple<int, int, std::uint16_t>, const CollectiveTiming*> timing_of;
  for (const CollectiveTiming& ct : timings) timing_of[{ct.step, ct.seq, ct.name}] = &ct;
  const std::size_t n = order.size();
  PhaseSamples s{std::vector<std::vector<double>>(n), std::vector<std::vector<double>>(n),
                 std::vector<std::vector<double>>(n), std::vector<int>(n, 0),
                 std::vector<int>(n, 0)};
  for (const Instance& in : instances) {
    for (std::size_t k = 0; k < n; ++k) {
      auto it = in.events.find(order[k]);
      if (it == in.events.end()) continue;
      const storage::Event& ev = t.event(it->second);
      ++s.seen[k];
      if (ev.kind != storage::EventKind::kCollective) {
        auto f = in.folded_ns.find(order[k]);
        s.durations[k].push_back(static_cast<double>(t.duration_ns(it->second)) +
                                 (f == in.folded_ns.end() ? 0 : f->second));
        continue;
      }
      auto ct = timing_of.find({ev.step, ev.seq, ev.name});
      if (ct != timing_of.end()) {
        s.transfers[k].push_back(ct->second->transfer_ns);
        s.waits[k].push_back(ct->second->wait_ns[static_cast<std::size_t>(in.rank)]);
      }
      if (k + 1 < n) {
        auto next = in.events.find(order[k + 1]);
        if (next != in.events.end() && t.event(next->second).begin_ns < ev.end_ns) {
          ++s.overlapped[k];
        }
      }
    }
  }
  return s;
}

// Collectives issued inside a compute phase (DDP enqueues its bucket all-reduces during
// `backward`; an import keeps `backward` as one piece around them): the collective's arrival
// falls before that phase's end in most instances. The model then splits the phase at the
// median offset of each such arrival and issues the collective there, asynchronously.
struct IssuedInside {
  std::vector<int> phase;         // the template phase collective k is issued in, or -1
  std::vector<double> offset_ns;  // its median offset from that phase's begin
};

IssuedInside find_issued_inside(const Timeline& t, const std::vector<Instance>& instances,
                                const std::vector<PhaseKey>& order) {
  const std::size_t n = order.size();
  IssuedInside issued{std::vector<int>(n, -1), std::vector<double>(n, 0)};
  for (std::size_t k = 0; k < n; ++k) {
    if (std::get<0>(order[k]) != storage::EventKind::kCollective) continue;
    int j = static_cast<int>(k) - 1;
    while (j >= 0 &&
           std::get<0>(order[static_cast<std::size_t>(j)]) == storage::EventKind::kCollective) {
      --j;
    }
    if (j < 0) continue;
    int inside = 0, both = 0;
    std::vector<double> offsets;
    for (const Instance& in : instances) {
      auto c_it = in.events.find(order[k]);
      auto p_it = in.events.find(order[static_cast<std::size_t>(j)]);
      if (c_it == in.events.end() || p_it == in.events.end()) continue;
      ++both;
      const storage::Event& coll = t.event(c_it->second);
      const storage::Event& phase = t.event(p_it->second);
      if (coll.begin_ns >= phase.begin_ns && coll.begin_ns < phase.end_ns) {
        ++inside;
        offsets.push_back(static_cast<double>(coll.begin_ns - phase.begin_ns));
      }
    }
    if (both > 0 && 2 * inside > both) {
      issued.phase[k] = j;
      issued.offset_ns[k] = median_of(offsets);
    }
  }
  return issued;
}

// Pass 2: the host gap before each phase, after the previous phase the rank had to finish. A
// gap that ends after an outstanding collective completed is, up to that completion, the rank
// waiting for it (DDP's finalize waits on the buckets' futures, no event records it): the
// model waits for the collective itself, so only the rest is host time. Which of the two a
// phase gets is decided by majority (waited against after_async).
struct PhaseGaps {
  std::vector<std::vector<double>> gaps, host_gaps;
  std::vector<int> waited, after_async;
};

// A rank's pass over one instance's template phases (see PhaseGaps).
void gaps_of_instance(const Timeline& t, const Instance& in, const std::vector<PhaseKey>& order,
                      const std::vector<bool>& async, PhaseGaps& g) {
  const EventIndex step_event = t.step_event[in.step][static_cast<std::size_t>(in.rank)];
  std::int64_t ready = t.event(step_event).begin_ns;
  std::vector<std::int64_t> outstanding;  // ends of async collectives not yet waited for
  for (std::size_t k = 0; k < order.size(); ++k) {
    auto it = in.events.find(order[k]);
    if (it == in.events.end()) continue;
    const storage::Event& ev = t.event(it->second);
    const double gap = static_cast<double>(std::max<std::int64_t>(0, ev.begin_ns - ready));
    g.gaps[k].push_back(gap);
    if (async[k]) {
      outstanding.push_back(ev.end_ns);
      ready = std::max(ready, ev.begin_ns);
      g.host_gaps[k].push_back(gap);
      continue;
    }
    double host_gap = gap;
    if (!outstanding.empty() && ev.kind != storage::EventKind::kCollective) {
      ++g.after_async[k];
      std::int64_t done = -1;  // the latest completion before the phase began
      for (std::int64_t end : outstanding) {
        if (end <= ev.begin_ns) done = std::max(done, end);
      }
      if (done > ready) {
        ++g.waited[k];
        host_gap = static_cast<double>(ev.begin_ns - done);
        std::erase_if(outstanding, [&](std::int64_t end) { return end <= ev.begin_ns; });
      }
    }
    g.host_gaps[k].push_back(host_gap);
    auto f = in.folded_end.find(order[k]);  // the phase's end, its folded pieces included
    ready = std::max(ready, std::max(ev.end_ns, f == in.folded_end.end() ? 0 : f->second));
  }
}

PhaseGaps phase_gaps(const Timeline& t, const std::vector<Instance>& instances,
                     const std::vector<PhaseKey>& order, const std::vector<bool>& async) {
  const std::size_t n = order.size();
  PhaseGaps g{std::vector<std::vector<double>>(n), std::vector<std::vector<double>>(n),
              std::vector<int>(n, 0), std::vector<int>(n, 0)};
  for (const Instance& in : instances) gaps_of_instance(t, in, order, async, g);
  return g;
}

// Asynchronous: a collective that overlaps the next phase in most instances, or one issued
// inside a compute phase (that phase goes on meanwhile).
std::vector<bool> async_phases(const std::vector<PhaseKey>& order, const PhaseSamples& s,
                               const IssuedInside& issued) {
  std::vector<bool> async(order.size(), false);
  for (std::size_t k = 0; k < order.size(); ++k) {
    async[k] = (std::get<0>(order[k]) == storage::EventKind::kCollective && s.seen[k] > 0 &&
                2 * s.overlapped[k] > s.seen[k]) ||
               issued.phase[k] >= 0;
  }
  return async;
}

// What the model needs to calibrate template phase k.
struct PhaseEvidence {
  const storage::RunData& run;
  const Timeline& t;
  const Template& tpl;
  const PhaseSamples& samples;
  const PhaseGaps& gaps;
  const std::vector<bool>& async;
};

CalibratedPhase calibrate_phase(const PhaseEvidence& ev, std::size_t k,
                                std::vector<std::string>& notes) {
  // Equal names repeat in imported steps (the occurrence); each stays a phase of its own.
  const auto& [kind, name, microbatch, layer, seq, occurrence] = ev.tpl.order[k];
  (void)occurrence;
  const PhaseSamples& s = ev.samples;
  CalibratedPhase p;
  p.phase.name = ev.run.names[name];
  p.phase.collective = kind == storage::EventKind::kCollective;
  p.phase.layer = p.phase.collective ? -1 : layer;
  p.phase.microbatch = p.phase.collective ? -1 : microbatch;
  p.samples = s.seen[k];
  const bool waiting = !p.phase.collective && ev.gaps.after_async[k] > 0 &&
                       2 * ev.gaps.waited[k] > ev.gaps.after_async[k];
  p.phase.gap_ms = ms(median_of(waiting ? ev.gaps.host_gaps[k] : ev.gaps.gaps[k]));
  if (p.phase.collective) {
    p.phase.seq = seq;
    p.phase.bytes = ev.t.event(ev.tpl.first[k]).bytes;
    p.phase.async = ev.async[k];
    p.phase.ms = s.transfers[k].empty() ? 0 : ms(median_of(s.transfers[k]));
    p.wait_ms = s.waits[k].empty() ? 0 : ms(median_of(s.waits[k]));
    if (s.transfers[k].empty()) {
      notes.push_back("collective " + p.phase.name + " seq " + std::to_string(seq) +
                      " is not matched on every rank: transfer time 0");
    }
  } else {
    p.phase.ms = ms(median_of(s.durations[k]));
    p.spread_cv = robust_cv(s.durations[k], 4);
    p.phase.waits = waiting;
  }
  if (p.samples < static_cast<int>(ev.tpl.instances)) {
    notes.push_back(p.phase.name + " appears in " + std::to_string(p.samples) + " of " +
                    std::to_string(ev.tpl.instances) +
                    " (rank, step) instances; its median is over those");
  }
  return p;
}

// The noise of the phases that carry the step: the compute phases' robust CVs' median weighted
// by each phase's time (an import's many tiny ops, timed to the microsecond, would otherwise
// set it). Only phases with at least 4 samples and a time count.
double weighted_noise_cv(const std::vector<CalibratedPhase>& phases, const PhaseSamples& samples) {
  std::vector<std::pair<double, double>> cvs;  // (robust CV, median ms) per compute phase
  for (std::size_t k = 0; k < phases.size(); ++k) {
    const CalibratedPhase& p = phases[k];
    if (!p.phase.collective && p.phase.ms > 0 && samples.durations[k].size() >= 4)
      cvs.emplace_back(p.spread_cv, p.phase.ms);
  }
  std::sort(cvs.begin(), cvs.end());
  double total = 0, acc = 0;
  for (const auto& [cv, weight] : cvs) total += weight;
  for (const auto& [cv, weight] : cvs) {
    acc += weight;
    if (2 * acc >= total) return std::round(cv * 1e4) / 1e4;
  }
  return 0;
}

// One phase that collectives were issued inside, split around them: a piece up to each
// issue (continuation pieces: microbatch + 1000 x piece keeps identifiers apart), the
// collective issued there asynchronously, and the rest.
void split_around(const CalibratedPhase& whole, const std::vector<std::size_t>& inner,
                  const std::vector<CalibratedPhase>& phases, const IssuedInside& issued,
                  std::vector<CalibratedPhase>& out) {
  double done_ms = 0;
  int piece = 0;
  for (std::size_t k : inner) {
    const double at_ms = std::min(ms(issued.offset_ns[k]), whole.phase.ms);
    CalibratedPhase part = whole;
    part.phase.ms = std::max(0.0, at_ms - done_ms);
    if (piece > 0) {
      part.phase.gap_ms = 0;
      part.phase.microbatch = whole.phase.microbatch + 1000 * piece;
    }
    out.push_back(part);
    CalibratedPhase coll = phases[k];
    coll.phase.async = true;
    coll.phase.gap_ms = 0;
    out.push_back(coll);
    done_ms = std::max(done_ms, at_ms);
    ++piece;
  }
  CalibratedPhase rest = whole;
  rest.phase.ms = std::max(0.0, whole.phase.ms - done_ms);
  rest.phase.gap_ms = 0;
  rest.phase.microbatch = whole.phase.microbatch + 1000 * piece;
  out.push_back(rest);
}

std::vector<CalibratedPhase> split_issued(const std::vector<CalibratedPhase>& phases,
                                          const IssuedInside& issued) {
  std::vector<CalibratedPhase> split;
  const std::size_t n = phases.size();
  for (std::size_t j = 0; j < n; ++j) {
    if (issued.phase[j] >= 0) continue;  // emitted inside its phase
    std::vector<std::size_t> inner;
    for (std::size_t k = j + 1; k < n; ++k) {
      if (issued.phase[k] == static_cast<int>(j)) inner.push_back(k);
    }
    if (inner.empty()) {
      split.push_back(phases[j]);
      continue;
    }
    std::sort(inner.begin(), inner.end(), [&](std::size_t a, std::size_t b) {
      return issued.offset_ns[a] < issued.offset_ns[b];
    });
    split_around(phases[j], inner, phases, issued, split);
  }
  return split;
}

double schedule_ms(const std::vector<CalibratedPhase>& phases) {
  double ns = 0;
  for (const CalibratedPhase& p : phases)
    ns += (p.phase.gap_ms + (p.phase.async ? 0 : p.phase.ms)) * 1e6;
  return ns / 1e6;
}

// The run's steady steps, counted (c.steady_steps, c.warmup_steps), refused below the minimum.
std::vector<std::size_t> steady_steps(const storage::RunData& run, const Timeline& t,
                                      int min_steady_steps, Calibration& c) {
  std::vector<std::size_t> steady;
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    if (!t.steps[i].warmup) steady.push_back(i);
  }
  c.steady_steps = static_cast<int>(steady.size());
  // A count of steps, whatever numbering the run's meta.warmup_steps threshold refers to (an
  // import numbers steps from the profiler's first ProfilerStep#N).
  c.warmup_steps = static_cast<int>(t.steps.size() - steady.size());
  if (c.steady_steps < min_steady_steps) {
    throw UsageError(
        "run " + std::to_string(run.run_id) + " has " + std::to_string(c.steady_steps) +
        " steady step(s); a calibration needs at least " + std::to_string(min_steady_steps) +
        " to tell a phase's typical time from noise: use a run with more steps");
  }
  return steady;
}

}  // namespace

Calibration calibrate(const storage::RunData& run, int min_steady_steps) {
  const Timeline t = build_timeline(run);
  Calibration c;
  c.run_id = run.run_id;
  c.ranks = run.ranks;
  const std::vector<std::size_t> steady = steady_steps(run, t, min_steady_steps, c);
  c.first_step = t.steps.front().step;
  c.median_step_ms = median_step_ms(t.steps);

  std::vector<Instance> instances = steady_instances(t, steady, run.ranks);
  const Template tpl = find_template(t, instances, run.run_id);
  fold_pieces(t, tpl, instances, c.notes);
  const PhaseSamples samples = sample_phases(t, instances, tpl.order, time_collectives(t));
  const IssuedInside issued = find_issued_inside(t, instances, tpl.order);
  const std::vector<bool> async = async_phases(tpl.order, samples, issued);
  const PhaseGaps gaps = phase_gaps(t, instances, tpl.order, async);
  const PhaseEvidence evidence{run, t, tpl, samples, gaps, async};
  for (std::size_t k = 0; k < tpl.order.size(); ++k) {
    c.phases.push_back(calibrate_phase(evidence, k, c.notes));
  }
  c.noise_cv = weighted_noise_cv(c.phases, samples);
  if (std::any_of(issued.phase.begin(), issued.phase.end(), [](int j) { return j >= 0; })) {
    c.phases = split_issued(c.phases, issued);
    c.notes.push_back(
        "collectives issued inside a compute phase are issued there, asynchronously; "
        "that phase is split around them (continuation pieces: microbatch + 1000 x "
        "piece)");
  }
  c.schedule_ms = schedule_ms(c.phases);
  return c;
}

}  // namespace culprit::reduce
