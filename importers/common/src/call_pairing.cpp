// One rank's collectives: calls (CPU enqueues) paired with their work (gloo worker-thread
// executions, device kernels) by identifiers where the trace has them (correlation ids), else in
// order within a step, and numbered within their step (docs/importers.md, "Collectives").
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

#include "culprit/importers/mapping.hpp"

namespace culprit::importers {
namespace {

// A collective spanning record r: its times, name and what r says of payload, seq and group.
RankCollective collective_of(const TraceRecord& r) {
  return RankCollective{.arrival_ns = r.begin_ns,
                        .completion_ns = r.end_ns,
                        .name = r.name,
                        .numel = r.numel,
                        .elem_bytes = r.elem_bytes,
                        .seq = r.seq,
                        .group = r.group};
}

bool by_begin(const TraceRecord* a, const TraceRecord* b) {
  return a->begin_ns != b->begin_ns ? a->begin_ns < b->begin_ns : a->end_ns > b->end_ns;
}

// The records of a rank that take part: calls, records that may enrich a call (they carry an
// element count, a dtype, a Seq or a process group), works, and the runtime launches by
// correlation id.
struct CollectiveRecords {
  std::vector<const TraceRecord*> calls;  // by (thread, begin)
  std::vector<const TraceRecord*> info;
  std::vector<const TraceRecord*> works;  // by begin
  std::unordered_map<std::int64_t, const TraceRecord*> launch;
};

CollectiveRecords gather(const RankTrace& trace) {
  CollectiveRecords out;
  std::vector<signed char> call_name(trace.names.size(), -1);
  auto is_call = [&](std::uint32_t name) {
    if (call_name[name] < 0) call_name[name] = is_collective_call(trace.names[name]) ? 1 : 0;
    return call_name[name] == 1;
  };
  for (const TraceRecord& r : trace.records) {
    if (r.kind == RecordKind::kCollectiveWork) {
      out.works.push_back(&r);
      continue;
    }
    if (r.on_device) continue;
    if (is_call(r.name)) {
      out.calls.push_back(&r);
    } else if (r.numel >= 0 || r.elem_bytes || r.seq >= 0 || r.group >= 0) {
      out.info.push_back(&r);
    }
    if (r.kind == RecordKind::kRuntime && r.correlation >= 0) out.launch.emplace(r.correlation, &r);
  }
  std::sort(out.calls.begin(), out.calls.end(), [](const TraceRecord* a, const TraceRecord* b) {
    return a->thread != b->thread ? a->thread < b->thread : by_begin(a, b);
  });
  std::sort(out.works.begin(), out.works.end(), by_begin);
  std::sort(out.info.begin(), out.info.end(), [](const TraceRecord* a, const TraceRecord* b) {
    return a->thread != b->thread ? a->thread < b->thread : by_begin(a, b);
  });
  return out;
}

// The innermost record of `records.info` around the launch of device work `w` (on the launch's
// thread), nullptr when none: NCCL's ncclSend/ncclRecv range around a SendRecv kernel no call
// launched says its size and the two ranks that exchange.
const TraceRecord* info_around_launch(const CollectiveRecords& records, const TraceRecord& w) {
  if (!w.on_device || w.correlation < 0) return nullptr;
  auto l = records.launch.find(w.correlation);
  if (l == records.launch.end()) return nullptr;
  const TraceRecord& at = *l->second;
  auto it = std::upper_bound(records.info.begin(), records.info.end(), &at,
                             [](const TraceRecord* v, const TraceRecord* r) {
                               return v->thread != r->thread ? v->thread < r->thread
                                                             : v->begin_ns < r->begin_ns;
                             });
  for (int back = 0; back < 8 && it != records.info.begin(); ++back) {
    --it;
    if ((*it)->thread != at.thread) break;
    if ((*it)->end_ns >= at.begin_ns) return *it;
  }
  return nullptr;
}

// The outermost calls of each thread (c10d::allreduce_ > record_param_comms > nccl:all_reduce is
// one call), ordered by (thread, arrival), with each call's work once paired.
class Calls {
 public:
  Calls(const CollectiveRecords& records,
        std::vector<std::pair<std::size_t, const TraceRecord*>>& nested) {
    for (const TraceRecord* r : records.calls) {
      if (!calls_.empty() && r->thread == thread_.back() &&
          r->begin_ns < calls_.back().completion_ns) {
        nested.emplace_back(calls_.size() - 1, r);  // a call inside the open one: one collective
        continue;
      }
      calls_.push_back(collective_of(*r));
      thread_.push_back(r->thread);
    }
    work_of_.assign(calls_.size(), -1);
  }
  std::size_t size() const { return calls_.size(); }
  RankCollective& operator[](std::size_t k) { return calls_[k]; }
  std::int64_t thread(std::size_t k) const { return thread_[k]; }
  int& work_of(std::size_t k) { return work_of_[k]; }

  // The call on `thread` that started last at or before `t`, size() when none.
  std::size_t before(std::int64_t thread, std::int64_t t) const {
    std::size_t lo = 0, hi = calls_.size();
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      const bool earlier =
          thread_[mid] != thread ? thread_[mid] < thread : calls_[mid].arrival_ns <= t;
      if (earlier) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo == 0 || thread_[lo - 1] != thread ? calls_.size() : lo - 1;
  }

 private:
  std::vector<RankCollective> calls_;
  std::vector<std::int64_t> thread_;
  std::vector<int> work_of_;
};

// Records nested in a call say its element count, dtype, Seq and group: the first that
// says wins.
void enrich(Calls& calls, const CollectiveRecords& records,
            std::vector<std::pair<std::size_t, const TraceRecord*>>& nested) {
  for (const TraceRecord* r : records.info) {
    const std::size_t k = calls.before(r->thread, r->begin_ns);
    if (k < calls.size() && r->begin_ns < calls[k].completion_ns) nested.emplace_back(k, r);
  }
  std::sort(nested.begin(), nested.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : by_begin(a.second, b.second);
  });
  for (const auto& [k, r] : nested) {
    RankCollective& c = calls[k];
    if (c.numel < 0 && r->numel >= 0) c.numel = r->numel;
    if (c.elem_bytes == 0 && r->elem_bytes) c.elem_bytes = r->elem_bytes;
    if (c.seq < 0 && r->seq >= 0) c.seq = r->seq;
    if (c.group < 0 && r->group >= 0) c.group = r->group;
  }
}

// Device work is paired with its call by identifiers: the kernel's correlation id is its
// launch's (the runtime call; libkineto's ac2g flow carries the same id), and the launch lies
// inside the call on its thread.
void pair_by_correlation(Calls& calls, const CollectiveRecords& records,
                         std::vector<bool>& work_used) {
  for (std::size_t w = 0; w < records.works.size(); ++w) {
    const TraceRecord& work = *records.works[w];
    if (!work.on_device || work.correlation < 0) continue;
    auto l = records.launch.find(work.correlation);
    if (l == records.launch.end()) continue;
    const TraceRecord& at = *l->second;
    const std::size_t k = calls.before(at.thread, at.begin_ns);
    if (k == calls.size()) continue;
    if (calls.work_of(k) < 0 && calls.thread(k) == at.thread &&
        at.begin_ns <= calls[k].completion_ns) {
      calls.work_of(k) = static_cast<int>(w);
      work_used[w] = true;
    }
  }
}

// What has no identifier (gloo's worker-thread work, kernels whose launch is not in the trace)
// is paired in order within each step, and only in a step with as many calls as executions:
// which call an execution belongs to is then unambiguous. Where they differ (the profiler
// stopped before the last bucket's gloo work was recorded, or a sampled trace), pairing in order
// would give every later call the work (and element count) of the next one, so that step's
// calls stay without work: completion unknown, and the step is left out of the run
// (steps_cut_short, warned). Pairs whose element counts differ stay apart (warned).
void pair_in_order(Calls& calls, const CollectiveRecords& records, const RankSteps& steps,
                   std::vector<bool>& work_used, RankTrace& trace) {
  std::map<int, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> free_by_step;
  for (std::size_t k = 0; k < calls.size(); ++k) {
    if (calls.work_of(k) < 0) free_by_step[step_at(steps, calls[k].arrival_ns)].first.push_back(k);
  }
  for (std::size_t w = 0; w < records.works.size(); ++w) {
    if (!work_used[w]) free_by_step[step_at(steps, records.works[w]->begin_ns)].second.push_back(w);
  }
  int size_mismatch = 0;
  for (auto& [step, free] : free_by_step) {
    auto& [free_calls, free_works] = free;
    if (free_calls.empty() || free_works.empty()) continue;
    // Unequal numbers: the calls keep no work (completion unknown; steps_cut_short warns).
    if (free_calls.size() != free_works.size()) continue;
    std::sort(free_calls.begin(), free_calls.end(), [&](std::size_t a, std::size_t b) {
      return calls[a].arrival_ns < calls[b].arrival_ns;
    });
    for (std::size_t i = 0; i < free_calls.size(); ++i) {
      const RankCollective& c = calls[free_calls[i]];
      const TraceRecord& w = *records.works[free_works[i]];
      if (c.numel >= 0 && w.numel >= 0 && c.numel != w.numel) {
        ++size_mismatch;
        continue;  // not the same collective: both stand alone
      }
      calls.work_of(free_calls[i]) = static_cast<int>(free_works[i]);
      work_used[free_works[i]] = true;
    }
  }
  if (size_mismatch > 0) {
    trace.warnings.push_back(trace.file + ": " + std::to_string(size_mismatch) +
                             " collective call(s) and execution(s) paired in order have different "
                             "element counts: not paired");
  }
}

// Every call with its work merged in, then the work without a call: every work when the trace
// holds no call (a trimmed or CPU-worker-only trace), and a device kernel no call launched (an
// NCCL SendRecv of pipeline parallelism) even when other collectives have calls, with the size
// and group the range around its launch says. Unpaired gloo work stays out (its call is there,
// unpaired for the reason warned). By arrival.
std::vector<RankCollective> merged(Calls& calls, const CollectiveRecords& records,
                                   const std::vector<bool>& work_used) {
  std::vector<RankCollective> result;
  for (std::size_t k = 0; k < calls.size(); ++k) {
    RankCollective c = calls[k];
    if (calls.work_of(k) >= 0) {
      const TraceRecord* w = records.works[static_cast<std::size_t>(calls.work_of(k))];
      c.completion_ns = std::max(c.completion_ns, w->end_ns);
      if (w->on_device) c.device_begin_ns = w->begin_ns;
      if (c.numel < 0) c.numel = w->numel;
      if (c.elem_bytes == 0) c.elem_bytes = w->elem_bytes;
      if (c.seq < 0) c.seq = w->seq;
      if (c.group < 0) c.group = w->group;
    } else {
      c.completion_known = records.works.empty();  // a call without its work: only its enqueue
    }
    result.push_back(c);
  }
  for (std::size_t w = 0; w < records.works.size(); ++w) {
    if (work_used[w] || (calls.size() > 0 && !records.works[w]->on_device)) continue;
    RankCollective c = collective_of(*records.works[w]);
    if (records.works[w]->on_device) c.device_begin_ns = records.works[w]->begin_ns;
    if (const TraceRecord* info = info_around_launch(records, *records.works[w])) {
      if (c.numel < 0 && info->numel >= 0) c.numel = info->numel;
      if (c.elem_bytes == 0) c.elem_bytes = info->elem_bytes;
      if (c.group < 0) c.group = info->group;
    }
    result.push_back(c);
  }
  std::sort(result.begin(), result.end(), [](const RankCollective& a, const RankCollective& b) {
    return a.arrival_ns < b.arrival_ns;
  });
  return result;
}

// Each collective's step and its ordinal within the step; those outside every step are left
// out (warned).
std::vector<RankCollective> numbered(std::vector<RankCollective> all, const RankSteps& steps,
                                     RankTrace& trace) {
  std::map<int, int> ordinal;
  int outside = 0;
  std::vector<RankCollective> kept;
  for (RankCollective& c : all) {
    c.step = step_at(steps, c.arrival_ns);
    if (c.step < 0) {
      ++outside;
      continue;
    }
    c.ordinal = ordinal[c.step]++;
    kept.push_back(c);
  }
  if (outside > 0) {
    trace.warnings.push_back(trace.file + ": " + std::to_string(outside) +
                             " collective(s) outside every step are not kept");
  }
  return kept;
}

}  // namespace

std::vector<RankCollective> rank_collectives(RankTrace& trace, const RankSteps& steps) {
  const CollectiveRecords records = gather(trace);
  std::vector<std::pair<std::size_t, const TraceRecord*>> nested;  // (call, record inside it)
  Calls calls(records, nested);
  enrich(calls, records, nested);
  std::vector<bool> work_used(records.works.size(), false);
  pair_by_correlation(calls, records, work_used);
  pair_in_order(calls, records, steps, work_used, trace);
  return numbered(merged(calls, records, work_used), steps, trace);
}

}  // namespace culprit::importers
