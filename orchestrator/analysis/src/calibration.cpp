#include "culprit/analysis/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/timeline.hpp"
#include "culprit/errors.hpp"
#include "robust.hpp"

namespace culprit::analysis {
namespace {

// A phase within a step: what it is, plus its occurrence among equal ones (imported traces
// repeat an op name many times in one step).
using PhaseKey = std::tuple<storage::EventKind, std::uint16_t, int, int, int, int>;

PhaseKey key_of(const storage::Event& e, int occurrence) {
  return {e.kind, e.name, e.microbatch, e.layer, e.seq, occurrence};
}

bool is_phase(const storage::Event& e) {
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
    if (ev.step == step && is_phase(ev)) out.push_back(e);
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

double robust_cv(std::vector<double> values) {
  if (values.size() < 4) return 0;
  const double m = median_of(values);
  if (!(m > 0)) return 0;
  for (double& v : values) v -= m;
  return robust_sigma_about_zero(values) / m;
}

double ms(double ns) {
  return std::round(ns / 1e3) / 1e3;  // microsecond resolution
}

}  // namespace

Calibration calibrate(const storage::RunData& run, int min_steady_steps) {
  const Timeline t = build_timeline(run);
  const std::vector<CollectiveTiming> timings = time_collectives(t);
  Calibration c;
  c.run_id = run.run_id;
  c.ranks = run.ranks;
  c.warmup_steps = run.warmup_steps;
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
  c.first_step = t.steps.front().step;
  c.median_step_ms = median_step_ms(t.steps);

  std::vector<Instance> instances;
  for (std::size_t s : steady) {
    for (int r = 0; r < run.ranks; ++r) {
      instances.push_back({r, s, keyed(t, step_phases(t, r, t.steps[s].step)), {}, {}});
    }
  }
  // The template: the phases present in most (rank, steady step) instances, in the issue
  // order of the first instance that has them all (rank 0's first steady step when the job
  // repeats itself exactly, as a simulated or measured model does).
  std::map<PhaseKey, int> presence;
  for (const Instance& in : instances) {
    for (const auto& [key, e] : in.events) ++presence[key];
  }
  const auto stable = [&](const PhaseKey& key) {
    return 2 * presence[key] > static_cast<int>(instances.size());
  };
  const Instance* shape = &instances.front();
  for (const Instance& in : instances) {
    const int have = static_cast<int>(std::count_if(
        in.events.begin(), in.events.end(), [&](const auto& kv) { return stable(kv.first); }));
    const int want = static_cast<int>(std::count_if(
        presence.begin(), presence.end(), [&](const auto& kv) { return stable(kv.first); }));
    if (have == want) {
      shape = &in;
      break;
    }
  }
  std::vector<EventIndex> first;
  for (EventIndex e : step_phases(t, shape->rank, t.steps[shape->step].step)) first.push_back(e);
  std::vector<PhaseKey> order;
  {
    std::vector<EventIndex> kept;
    std::map<PhaseKey, int> seen;
    for (EventIndex e : first) {
      const PhaseKey base = key_of(t.event(e), 0);
      const PhaseKey key = key_of(t.event(e), seen[base]++);
      if (!stable(key)) continue;
      order.push_back(key);
      kept.push_back(e);
    }
    first = std::move(kept);
  }
  if (first.empty()) {
    throw UsageError("run " + std::to_string(run.run_id) + " has no compute or collective event " +
                     "present in most of its steady steps: nothing to calibrate");
  }
  // Fold the pieces outside the template into the template piece of their phase before them.
  int folded = 0, dropped = 0;
  for (Instance& in : instances) {
    for (const auto& [key, e] : in.events) {
      if (stable(key)) continue;
      const storage::Event& ev = t.event(e);
      const PhaseKey* host = nullptr;
      std::int64_t host_begin = 0;
      for (const PhaseKey& k : order) {
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
    std::erase_if(in.events, [&](const auto& kv) { return !stable(kv.first); });
  }
  if (folded > 0) {
    c.notes.push_back(std::to_string(folded) +
                      " piece(s) of a phase present in only some steps are folded into the "
                      "piece of the same phase before them (their compute time added)");
  }
  if (dropped > 0) {
    c.notes.push_back(std::to_string(dropped) +
                      " event(s) present in only some steps, with no piece of the same phase "
                      "before them, are left out of the model");
  }
  // A template phase's end in an instance, its folded pieces included.
  const auto end_of = [&](const Instance& in, const PhaseKey& key, EventIndex e) {
    auto f = in.folded_end.find(key);
    return std::max(t.event(e).end_ns, f == in.folded_end.end() ? 0 : f->second);
  };
  // Collective timing by (step, seq, name).
  std::map<std::tuple<int, int, std::uint16_t>, const CollectiveTiming*> timing_of;
  for (const CollectiveTiming& ct : timings) timing_of[{ct.step, ct.seq, ct.name}] = &ct;

  // Pass 1: durations, transfers and overlap per template phase.
  const std::size_t n = order.size();
  std::vector<std::vector<double>> durations(n), transfers(n), waits(n);
  std::vector<int> overlapped(n, 0), seen(n, 0);
  for (const Instance& in : instances) {
    for (std::size_t k = 0; k < n; ++k) {
      auto it = in.events.find(order[k]);
      if (it == in.events.end()) continue;
      const storage::Event& ev = t.event(it->second);
      ++seen[k];
      if (ev.kind == storage::EventKind::kCollective) {
        auto ct = timing_of.find({ev.step, ev.seq, ev.name});
        if (ct != timing_of.end()) {
          transfers[k].push_back(ct->second->transfer_ns);
          waits[k].push_back(ct->second->wait_ns[static_cast<std::size_t>(in.rank)]);
        }
        if (k + 1 < n) {
          auto next = in.events.find(order[k + 1]);
          if (next != in.events.end() && t.event(next->second).begin_ns < ev.end_ns) {
            ++overlapped[k];
          }
        }
      } else {
        auto f = in.folded_ns.find(order[k]);
        durations[k].push_back(static_cast<double>(t.duration_ns(it->second)) +
                               (f == in.folded_ns.end() ? 0 : f->second));
      }
    }
  }
  // Collectives issued inside a compute phase (DDP enqueues its bucket all-reduces during
  // `backward`; an import keeps `backward` as one piece around them): the collective's arrival
  // falls before that phase's end in most instances. The model then splits the phase at the
  // median offset of each such arrival and issues the collective there, asynchronously.
  std::vector<int> issued_in(n, -1);
  std::vector<double> issue_offset_ns(n, 0);
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
      issued_in[k] = j;
      issue_offset_ns[k] = median_of(offsets);
    }
  }

  // Pass 2: the host gap before each phase, after the previous phase the rank had to finish.
  std::vector<bool> async(n, false);
  for (std::size_t k = 0; k < n; ++k) {
    async[k] = std::get<0>(order[k]) == storage::EventKind::kCollective && seen[k] > 0 &&
               2 * overlapped[k] > seen[k];
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (issued_in[k] >= 0) async[k] = true;  // the phase it was issued in goes on meanwhile
  }
  // A gap that ends after an outstanding collective completed is, up to that completion,
  // the rank waiting for it (DDP's finalize waits on the buckets' futures, no event records
  // it): the model waits for the collective itself, so only the rest is host time. Which of
  // the two a phase gets is decided below by majority (waits).
  std::vector<std::vector<double>> gaps(n), host_gaps(n);
  std::vector<int> waited(n, 0), after_async(n, 0);
  for (const Instance& in : instances) {
    const EventIndex step_event = t.step_event[in.step][static_cast<std::size_t>(in.rank)];
    std::int64_t ready = t.event(step_event).begin_ns;
    std::vector<std::int64_t> outstanding;  // ends of async collectives not yet waited for
    for (std::size_t k = 0; k < n; ++k) {
      auto it = in.events.find(order[k]);
      if (it == in.events.end()) continue;
      const storage::Event& ev = t.event(it->second);
      const double gap = static_cast<double>(std::max<std::int64_t>(0, ev.begin_ns - ready));
      gaps[k].push_back(gap);
      if (async[k]) {
        outstanding.push_back(ev.end_ns);
        ready = std::max(ready, ev.begin_ns);
        host_gaps[k].push_back(gap);
        continue;
      }
      if (!outstanding.empty() && ev.kind != storage::EventKind::kCollective) {
        ++after_async[k];
        std::int64_t done = -1;  // the latest completion before the phase began
        for (std::int64_t end : outstanding) {
          if (end <= ev.begin_ns) done = std::max(done, end);
        }
        if (done > ready) {
          ++waited[k];
          host_gaps[k].push_back(static_cast<double>(ev.begin_ns - done));
          std::erase_if(outstanding, [&](std::int64_t end) { return end <= ev.begin_ns; });
        } else {
          host_gaps[k].push_back(gap);
        }
      } else {
        host_gaps[k].push_back(gap);
      }
      ready = std::max(ready, end_of(in, order[k], it->second));
    }
  }

  std::vector<std::pair<double, double>> cvs;  // (robust CV, median ms) per compute phase
  double schedule_ns = 0;
  for (std::size_t k = 0; k < n; ++k) {
    // Equal names repeat in imported steps (the occurrence); each stays a phase of its own.
    const auto& [kind, name, microbatch, layer, seq, occurrence] = order[k];
    (void)occurrence;
    CalibratedPhase p;
    p.phase.name = run.names[name];
    p.phase.collective = kind == storage::EventKind::kCollective;
    p.phase.layer = p.phase.collective ? -1 : layer;
    p.phase.microbatch = p.phase.collective ? -1 : microbatch;
    p.samples = seen[k];
    const bool waiting =
        !p.phase.collective && after_async[k] > 0 && 2 * waited[k] > after_async[k];
    p.phase.gap_ms = ms(median_of(waiting ? host_gaps[k] : gaps[k]));
    if (p.phase.collective) {
      const storage::Event& ev = t.event(first[k]);
      p.phase.seq = seq;
      p.phase.bytes = ev.bytes;
      p.phase.async = async[k];
      p.phase.ms = transfers[k].empty() ? 0 : ms(median_of(transfers[k]));
      p.wait_ms = waits[k].empty() ? 0 : ms(median_of(waits[k]));
      if (transfers[k].empty()) {
        c.notes.push_back("collective " + p.phase.name + " seq " + std::to_string(seq) +
                          " is not matched on every rank: transfer time 0");
      }
    } else {
      p.phase.ms = ms(median_of(durations[k]));
      p.spread_cv = robust_cv(durations[k]);
      if (p.phase.ms > 0 && durations[k].size() >= 4) cvs.emplace_back(p.spread_cv, p.phase.ms);
      p.phase.waits = waiting;
    }
    schedule_ns += (p.phase.gap_ms + (p.phase.async ? 0 : p.phase.ms)) * 1e6;
    if (p.samples < static_cast<int>(instances.size())) {
      c.notes.push_back(p.phase.name + " appears in " + std::to_string(p.samples) + " of " +
                        std::to_string(instances.size()) +
                        " (rank, step) instances; its median is over those");
    }
    c.phases.push_back(std::move(p));
  }
  // The noise of the phases that carry the step: the CVs' median weighted by each phase's
  // time (an import's many tiny ops, timed to the microsecond, would otherwise set it).
  std::sort(cvs.begin(), cvs.end());
  double total = 0, acc = 0;
  for (const auto& [cv, weight] : cvs) total += weight;
  for (const auto& [cv, weight] : cvs) {
    acc += weight;
    if (2 * acc >= total) {
      c.noise_cv = std::round(cv * 1e4) / 1e4;
      break;
    }
  }

  // Split the phases that collectives were issued inside (see issued_in above).
  if (std::any_of(issued_in.begin(), issued_in.end(), [](int j) { return j >= 0; })) {
    std::vector<CalibratedPhase> split;
    for (std::size_t j = 0; j < n; ++j) {
      if (issued_in[j] >= 0) continue;  // emitted inside its phase below
      std::vector<std::size_t> inner;
      for (std::size_t k = j + 1; k < n; ++k) {
        if (issued_in[k] == static_cast<int>(j)) inner.push_back(k);
      }
      if (inner.empty()) {
        split.push_back(c.phases[j]);
        continue;
      }
      std::sort(inner.begin(), inner.end(), [&](std::size_t a, std::size_t b) {
        return issue_offset_ns[a] < issue_offset_ns[b];
      });
      const CalibratedPhase& whole = c.phases[j];
      double done_ms = 0;
      int piece = 0;
      for (std::size_t k : inner) {
        const double at_ms = std::min(ms(issue_offset_ns[k]), whole.phase.ms);
        CalibratedPhase part = whole;
        part.phase.ms = std::max(0.0, at_ms - done_ms);
        if (piece > 0) {
          part.phase.gap_ms = 0;
          // A continuation piece: microbatch + 1000 x piece keeps its identifiers apart.
          part.phase.microbatch = whole.phase.microbatch + 1000 * piece;
        }
        split.push_back(part);
        CalibratedPhase coll = c.phases[k];
        coll.phase.async = true;
        coll.phase.gap_ms = 0;
        split.push_back(coll);
        done_ms = std::max(done_ms, at_ms);
        ++piece;
      }
      CalibratedPhase rest = whole;
      rest.phase.ms = std::max(0.0, whole.phase.ms - done_ms);
      rest.phase.gap_ms = 0;
      rest.phase.microbatch = whole.phase.microbatch + 1000 * piece;
      split.push_back(rest);
    }
    c.phases = std::move(split);
    c.notes.push_back(
        "collectives issued inside a compute phase are issued there, asynchronously; "
        "that phase is split around them (continuation pieces: microbatch + 1000 x "
        "piece)");
    schedule_ns = 0;
    for (const CalibratedPhase& p : c.phases) {
      schedule_ns += (p.phase.gap_ms + (p.phase.async ? 0 : p.phase.ms)) * 1e6;
    }
  }
  c.schedule_ms = schedule_ns / 1e6;
  return c;
}

}  // namespace culprit::analysis
