#include "culprit/report/perfetto_export.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "culprit/common/lookup.hpp"
#include "culprit/errors.hpp"
#include "culprit/report/attribution_report.hpp"
#include "culprit/report/json_writer.hpp"
#include "culprit/storage/run_data.hpp"
#include "runfile/run_file.hpp"

namespace culprit::report {
namespace {

constexpr LookupEntry<storage::EventKind, int> kTracks[] = {
    {storage::EventKind::kCompute, kComputeTrack},
    {storage::EventKind::kCollective, kCollectiveTrack},
    {storage::EventKind::kHost, kHostTrack},
    {storage::EventKind::kStep, kStepTrack}};

int track_of(storage::EventKind kind) {
  return lookup(kTracks, kind, int{kHostTrack});
}

// A slice to write, sorted per track by time before writing.
struct Slice {
  int rank = 0;
  int track = 0;
  std::int64_t begin = 0;  // aligned ns, rounded, from the origin
  std::int64_t end = 0;
  analysis::EventIndex event = analysis::kNoEvent;
  bool wait = false;
  int collective = -1;  // Timeline::collectives index for waits
};

class TraceWriter {
 public:
  TraceWriter(const analysis::Timeline& timeline,
              const std::vector<analysis::CollectiveTiming>& timings,
              const analysis::RunAttribution& attribution, const TraceFilter& filter)
      : run_(*timeline.run),
        shown_(attribution),
        a_(analysis::in_positions(attribution, run_)),
        t_(timeline),
        timings_(timings) {
    const storage::RunData& run = run_;
    // Ranks are positions here (the timeline's indices) and the job's ids in what is written.
    for (int id : filter.ranks) {
      if (const int r = run.position_of(id); r >= 0) ranks_.insert(r);
    }
    if (filter.ranks.empty()) {
      for (int r = 0; r < run.ranks; ++r) ranks_.insert(r);
    }
    first_step_ = filter.first_step;
    last_step_ = filter.last_step;
    origin_ = std::numeric_limits<double>::infinity();
    for (std::size_t e = 0; e < run.events.size(); ++e) origin_ = std::min(origin_, t_.begin_ns[e]);
    if (run.events.empty()) origin_ = 0;
    origin_ = std::floor(origin_);
  }

  std::string write() {
    collect();
    json_.begin_object().field("displayTimeUnit", "ns");
    json_.key("traceEvents").begin_array();
    metadata();
    for (const Slice& s : slices_) slice(s);
    flows();
    annotations();
    json_.end_array();
    other_data();
    json_.end_object();
    return json_.str();
  }

 private:
  bool included(const storage::Event& e) const {
    return ranks_.count(e.rank) && (first_step_ < 0 || e.step >= first_step_) &&
           (last_step_ < 0 || e.step <= last_step_);
  }
  std::int64_t aligned(double ns) const { return std::llround(ns - origin_); }
  static double us(std::int64_t ns) { return static_cast<double>(ns) / 1000.0; }

  void collect() {
    for (std::size_t i = 0; i < run_.events.size(); ++i) {
      const storage::Event& e = run_.events[i];
      if (!included(e)) continue;
      Slice s;
      s.rank = e.rank;
      s.track = track_of(e.kind);
      s.begin = aligned(t_.begin_ns[i]);
      s.end = aligned(t_.end_ns[i]);
      s.event = static_cast<analysis::EventIndex>(i);
      slices_.push_back(s);
      const std::int32_t k = t_.collective_of[i];
      if (k < 0) continue;
      const double wait =
          timings_[static_cast<std::size_t>(k)].wait_ns[static_cast<std::size_t>(e.rank)];
      if (wait <= 0) continue;
      Slice w = s;
      w.track = kWaitTrack;
      w.end = aligned(t_.begin_ns[i] + wait);
      w.wait = true;
      w.collective = k;
      slices_.push_back(w);
    }
    std::stable_sort(slices_.begin(), slices_.end(), [](const Slice& x, const Slice& y) {
      if (x.rank != y.rank) return x.rank < y.rank;
      if (x.track != y.track) return x.track < y.track;
      if (x.begin != y.begin) return x.begin < y.begin;
      return x.end > y.end;  // an enclosing slice first
    });
  }

  void metadata() {
    static const std::pair<int, const char*> tracks[] = {{kComputeTrack, "compute"},
                                                         {kCollectiveTrack, "collectives"},
                                                         {kWaitTrack, "waits"},
                                                         {kHostTrack, "host"},
                                                         {kStepTrack, "steps"}};
    for (int r : ranks_) {
      const int id = run_.rank_id(r);
      metadata_event("process_name", id, 0, "name", fmt::format("rank {}", id));
      metadata_event("process_sort_index", id, 0, "sort_index", id);
      for (const auto& [tid, name] : tracks) {
        metadata_event("thread_name", id, tid, "name", name);
        metadata_event("thread_sort_index", id, tid, "sort_index", tid);
      }
    }
  }

  // A metadata ("ph": "M") event naming or ordering a process (tid 0) or a thread (a track).
  template <class Value>
  void metadata_event(const char* name, int pid, int tid, const char* arg, const Value& value) {
    json_.begin_object().field("ph", "M").field("name", name).field("pid", pid).field("tid", tid);
    json_.key("args").begin_object().field(arg, value).end_object().end_object();
  }

  bool is_culprit(const storage::Event& e) const {
    const analysis::RunCulprit& c = a_.culprit;
    return c.found && e.rank == c.rank && (c.layer < 0 || e.layer == c.layer) &&
           run_.names[e.name] == c.phase;
  }

  void slice(const Slice& s) {
    const storage::Event& e = t_.event(s.event);
    const std::string& name = run_.names[e.name];
    json_.begin_object()
        .field("ph", "X")
        .field("name", s.wait ? "wait: " + name : name)
        .field("cat", s.wait ? "wait" : runfile::event_kind_name(e.kind))
        .field("pid", run_.rank_id(s.rank))
        .field("tid", s.track)
        .field("ts", us(s.begin))
        .field("dur", us(s.end - s.begin));
    json_.key("args").begin_object();
    json_.field("step", e.step)
        .field("microbatch", e.microbatch)
        .field("layer", e.layer)
        .field("seq", e.seq);
    if (e.kind == storage::EventKind::kCollective) json_.field("bytes", e.bytes);
    json_.field("raw_begin_ns", e.begin_ns).field("raw_end_ns", e.end_ns);
    json_.field("aligned_begin_ns", s.begin).field("aligned_end_ns", s.end);
    json_.field("clock_uncertainty_ns", uncertainty(e.rank));
    if (s.wait) {
      const analysis::CollectiveTiming& c = timings_[static_cast<std::size_t>(s.collective)];
      json_.field("wait_ns", c.wait_ns[static_cast<std::size_t>(e.rank)])
          .field("last_arriver", run_.rank_id(c.last_arriver));
    }
    if (!s.wait && is_culprit(e)) json_.field("culprit", true);
    json_.end_object().end_object();
  }

  double uncertainty(int rank) const {
    const auto r = static_cast<std::size_t>(rank);
    const double model = r < run_.clocks.size() ? run_.clocks[r].uncertainty_ns : 0.0;
    return r < t_.alignment.size() ? std::max(model, t_.alignment[r].uncertainty_ns) : model;
  }

  // One flow per collective instance: through its slices on every shown rank, in arrival order.
  void flows() {
    std::int64_t id = 0;
    for (std::size_t k = 0; k < t_.collectives.size(); ++k) {
      const analysis::CollectiveGroup& g = t_.collectives[k];
      std::vector<std::pair<std::int64_t, int>> arrivals;  // (aligned begin, rank)
      for (int r : ranks_) {
        const analysis::EventIndex e = g.event[static_cast<std::size_t>(r)];
        if (e == analysis::kNoEvent || !included(t_.event(e))) continue;
        arrivals.emplace_back(aligned(t_.begin_ns[static_cast<std::size_t>(e)]), r);
      }
      if (arrivals.size() < 2) continue;
      std::sort(arrivals.begin(), arrivals.end());
      ++id;
      const std::string name = fmt::format("{} #{} step {}", run_.names[g.name], g.seq, g.step);
      for (std::size_t i = 0; i < arrivals.size(); ++i) {
        const char* ph = i == 0 ? "s" : (i + 1 == arrivals.size() ? "f" : "t");
        json_.begin_object()
            .field("ph", ph)
            .field("id", id)
            .field("name", name)
            .field("cat", "collective")
            .field("pid", run_.rank_id(arrivals[i].second))
            .field("tid", kCollectiveTrack)
            .field("ts", us(arrivals[i].first));
        if (i + 1 == arrivals.size()) json_.field("bp", "e");
        json_.end_object();
      }
    }
    flows_ = id;
  }

  void instant(int rank, std::int64_t ts, const std::string& name, const analysis::Culprit& c,
               bool global) {
    json_.begin_object()
        .field("ph", "i")
        .field("s", global ? "g" : "t")
        .field("name", name)
        .field("cat", "annotation")
        .field("pid", run_.rank_id(rank))
        .field("tid", kComputeTrack)
        .field("ts", us(ts));
    json_.key("args")
        .begin_object()
        .field("rank", run_.rank_id(c.rank))
        .field("phase", c.phase)
        .field("layer", c.layer)
        .field("microbatch", c.microbatch)
        .field("step", c.step)
        .field("excess_ms", c.excess_ns / 1e6)
        .field("typical_ms", c.typical_ns / 1e6)
        .end_object()
        .end_object();
  }

  void annotations() {
    bool culprit_marked = false;
    for (const analysis::StepAttribution& s : a_.steps) {
      const analysis::Culprit& c = s.decomposition.culprit;
      if (!c.found || c.event == analysis::kNoEvent) continue;
      const storage::Event& e = t_.event(c.event);
      if (!included(e)) continue;
      const std::int64_t ts = aligned(t_.begin_ns[static_cast<std::size_t>(c.event)]);
      instant(e.rank, ts,
              fmt::format("first divergence of step {}: rank {} {}", s.decomposition.step,
                          run_.rank_id(c.rank), c.phase),
              c, false);
      if (!culprit_marked && is_culprit(e) && !s.decomposition.warmup) {
        instant(e.rank, ts,
                fmt::format("culprit: rank {} {}{}", run_.rank_id(c.rank), c.phase,
                            c.layer >= 0 ? fmt::format(" layer {}", c.layer) : ""),
                c, true);
        culprit_marked = true;
      }
    }
  }

  void other_data() {
    json_.key("otherData").begin_object();
    json_.field("run_id", run_.run_id).field("ranks", run_.ranks);
    json_.field("origin_ns", static_cast<std::int64_t>(origin_));
    json_.field(
        "clock",
        "aligned to rank 0: clock model + refinement from collectives; ts in us from origin_ns");
    json_.field("flows", flows_);
    json_.key("culprit");
    write_run_culprit(json_, shown_.culprit);
    json_.key("clocks").begin_array();
    for (int r : ranks_) {
      const auto i = static_cast<std::size_t>(r);
      json_.begin_object().field("rank", run_.rank_id(r));
      if (i < run_.clocks.size()) {
        json_.field("offset_ns", run_.clocks[i].offset_ns)
            .field("drift_ppm", run_.clocks[i].drift_ppm)
            .field("ref_ns", run_.clocks[i].ref_ns);
      }
      json_.field("correction_ns", i < t_.alignment.size() ? t_.alignment[i].correction_ns : 0.0)
          .field("uncertainty_ns", uncertainty(r))
          .end_object();
    }
    json_.end_array().end_object();
  }

  const storage::RunData& run_;
  const analysis::RunAttribution& shown_;  // the job's rank ids
  analysis::RunAttribution a_;             // the same on rank positions
  const analysis::Timeline& t_;
  const std::vector<analysis::CollectiveTiming>& timings_;
  std::set<int> ranks_;
  int first_step_ = -1;
  int last_step_ = -1;
  double origin_ = 0;
  std::vector<Slice> slices_;
  std::int64_t flows_ = 0;
  JsonWriter json_;
};

}  // namespace

void check_trace_filter(const storage::RunData& run, const TraceFilter& filter) {
  if (run.events.empty() || (filter.first_step < 0 && filter.last_step < 0)) return;
  // Events are in step order.
  const int first = run.events.front().step;
  const int last = run.events.back().step;
  const int from = filter.first_step < 0 ? first : filter.first_step;
  const int to = filter.last_step < 0 ? last : filter.last_step;
  if (from <= last && to >= first) return;
  auto side = [](int step) { return step < 0 ? std::string() : std::to_string(step); };
  throw UsageError(fmt::format(
      "--steps {}:{} selects no step of run {}, which has steps {}..{}: give steps in that range",
      side(filter.first_step), side(filter.last_step), run.run_id, first, last));
}

std::string perfetto_trace(const analysis::Timeline& timeline,
                           const std::vector<analysis::CollectiveTiming>& timings,
                           const analysis::RunAttribution& attribution, const TraceFilter& filter) {
  return TraceWriter(timeline, timings, attribution, filter).write();
}

}  // namespace culprit::report
