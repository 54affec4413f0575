// Collectives: calls paired with their work on each rank, numbered within the step, and
// checked across ranks by identifiers (step, ordinal, element count, process group, Seq).
#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include "culprit/common/kernels.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/mapping.hpp"

namespace culprit::importers {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

constexpr std::array<std::string_view, 14> kMpiCollectives = {
    "MPI_Allreduce",      "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall",
    "MPI_Alltoallv",      "MPI_Bcast",     "MPI_Barrier",    "MPI_Reduce",
    "MPI_Reduce_scatter", "MPI_Gather",    "MPI_Gatherv",    "MPI_Scatter",
    "MPI_Scatterv",       "MPI_Scan"};

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

}  // namespace

bool is_collective_call(std::string_view name) {
  if (starts_with(name, "c10d::")) return name != "c10d::wait" && name != "c10d::wait_";
  if (starts_with(name, "nccl:")) return true;
  // PyTorch's symmetric-memory collectives (symm_mem::multimem_all_reduce_), whose kernels are
  // no nccl* kernels.
  if (starts_with(name, "symm_mem::")) return collective_op_from_name(name) != CollectiveOp::kNone;
  return std::find(kMpiCollectives.begin(), kMpiCollectives.end(), name) != kMpiCollectives.end();
}

bool is_collective_work(std::string_view name) {
  return starts_with(name, "gloo:") || classify_kernel(name).kind == KernelClass::kCollective;
}

const KernelKind& KernelClasses::of(const NameTable& names, std::uint32_t name) const {
  if (name >= known_.size()) known_.resize(names.size(), 0);
  if (!known_[name]) {
    kinds_.resize(known_.size());
    kinds_[name] = classify_kernel(names[name]);
    known_[name] = 1;
  }
  return kinds_[name];
}

std::vector<RankCollective> rank_collectives(RankTrace& trace, const RankSteps& steps) {
  // Calls on the CPU threads (the main thread, and the autograd thread from which DDP issues its
  // bucket all-reduces), outermost only (c10d::allreduce_ > record_param_comms > nccl:all_reduce
  // is one call); nested records with an element count enrich it.
  // Only the calls are sorted; records that may enrich one (they carry an element count, a
  // dtype, a Seq or a process group) find their call by binary search.
  std::vector<signed char> call_name(trace.names.size(), -1);
  auto is_call = [&](std::uint32_t name) {
    if (call_name[name] < 0) call_name[name] = is_collective_call(trace.names[name]) ? 1 : 0;
    return call_name[name] == 1;
  };
  std::vector<const TraceRecord*> found_calls;
  std::vector<const TraceRecord*> info;
  std::vector<const TraceRecord*> works;
  std::unordered_map<std::int64_t, const TraceRecord*> launch;  // correlation -> runtime call
  for (const TraceRecord& r : trace.records) {
    if (r.kind == RecordKind::kCollectiveWork) {
      works.push_back(&r);
    } else if (!r.on_device) {
      if (is_call(r.name)) {
        found_calls.push_back(&r);
      } else if (r.numel >= 0 || r.elem_bytes || r.seq >= 0 || r.group >= 0) {
        info.push_back(&r);
      }
      if (r.kind == RecordKind::kRuntime && r.correlation >= 0) launch.emplace(r.correlation, &r);
    }
  }
  auto by_begin = [](const TraceRecord* a, const TraceRecord* b) {
    return a->begin_ns != b->begin_ns ? a->begin_ns < b->begin_ns : a->end_ns > b->end_ns;
  };
  auto by_thread_begin = [&](const TraceRecord* a, const TraceRecord* b) {
    return a->thread != b->thread ? a->thread < b->thread : by_begin(a, b);
  };
  std::sort(found_calls.begin(), found_calls.end(), by_thread_begin);
  std::sort(works.begin(), works.end(), by_begin);

  std::vector<RankCollective> calls;  // ordered by (thread, arrival)
  std::vector<std::int64_t> call_thread;
  std::vector<std::pair<std::size_t, const TraceRecord*>> nested;  // (call, record inside it)
  for (const TraceRecord* r : found_calls) {
    if (!calls.empty() && r->thread == call_thread.back() &&
        r->begin_ns < calls.back().completion_ns) {
      nested.emplace_back(calls.size() - 1, r);  // a call inside the open one: one collective
      continue;
    }
    calls.push_back(collective_of(*r));
    call_thread.push_back(r->thread);
  }
  // The call on `thread` that started last at or before `t`, calls.size() when none.
  auto call_before = [&](std::int64_t thread, std::int64_t t) {
    std::size_t lo = 0, hi = calls.size();
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      const bool before =
          call_thread[mid] != thread ? call_thread[mid] < thread : calls[mid].arrival_ns <= t;
      if (before) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo == 0 || call_thread[lo - 1] != thread ? calls.size() : lo - 1;
  };
  for (const TraceRecord* r : info) {
    const std::size_t k = call_before(r->thread, r->begin_ns);
    if (k < calls.size() && r->begin_ns < calls[k].completion_ns) nested.emplace_back(k, r);
  }
  std::sort(nested.begin(), nested.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : by_begin(a.second, b.second);
  });
  for (const auto& [k, r] : nested) {  // the first nested record that says wins
    RankCollective& c = calls[k];
    if (c.numel < 0 && r->numel >= 0) c.numel = r->numel;
    if (c.elem_bytes == 0 && r->elem_bytes) c.elem_bytes = r->elem_bytes;
    if (c.seq < 0 && r->seq >= 0) c.seq = r->seq;
    if (c.group < 0 && r->group >= 0) c.group = r->group;
  }

  // Device work is paired with its call by identifiers: the kernel's correlation id is its
  // launch's (the runtime call; libkineto's ac2g flow carries the same id), and the launch lies
  // inside the call on its thread. What has no identifier (gloo's worker-thread work, kernels
  // whose launch is not in the trace) is paired in order, checked against the element count.
  std::vector<int> work_of(calls.size(), -1);
  std::vector<bool> work_used(works.size(), false);
  for (std::size_t w = 0; w < works.size(); ++w) {
    if (!works[w]->on_device || works[w]->correlation < 0) continue;
    auto l = launch.find(works[w]->correlation);
    if (l == launch.end()) continue;
    const TraceRecord& at = *l->second;
    const std::size_t k = call_before(at.thread, at.begin_ns);
    if (k == calls.size()) continue;
    if (work_of[k] < 0 && call_thread[k] == at.thread && at.begin_ns <= calls[k].completion_ns) {
      work_of[k] = static_cast<int>(w);
      work_used[w] = true;
    }
  }
  // What has no identifier is paired in order within each step, and only in a step with as
  // many calls as executions: which call an execution belongs to is then unambiguous. Where they
  // differ (the profiler stopped before the last bucket's gloo work was recorded, or a sampled
  // trace), pairing in order would give every later call the work (and element count) of the
  // next one, so that step's calls stay without work: completion unknown, and the step is left
  // out of the run (steps_cut_short, warned).
  std::map<int, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> free_by_step;
  for (std::size_t k = 0; k < calls.size(); ++k) {
    if (work_of[k] < 0) free_by_step[step_at(steps, calls[k].arrival_ns)].first.push_back(k);
  }
  for (std::size_t w = 0; w < works.size(); ++w) {
    if (!work_used[w]) free_by_step[step_at(steps, works[w]->begin_ns)].second.push_back(w);
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
      const TraceRecord& w = *works[free_works[i]];
      if (c.numel >= 0 && w.numel >= 0 && c.numel != w.numel) {
        ++size_mismatch;
        continue;  // not the same collective: both stand alone
      }
      work_of[free_calls[i]] = static_cast<int>(free_works[i]);
      work_used[free_works[i]] = true;
    }
  }
  if (size_mismatch > 0) {
    trace.warnings.push_back(trace.file + ": " + std::to_string(size_mismatch) +
                             " collective call(s) and execution(s) paired in order have different "
                             "element counts: not paired");
  }

  std::vector<RankCollective> result;
  for (std::size_t k = 0; k < calls.size(); ++k) {
    RankCollective c = calls[k];
    if (work_of[k] >= 0) {
      const TraceRecord* w = works[static_cast<std::size_t>(work_of[k])];
      c.completion_ns = std::max(c.completion_ns, w->end_ns);
      if (w->on_device) c.device_begin_ns = w->begin_ns;
      if (c.numel < 0) c.numel = w->numel;
      if (c.elem_bytes == 0) c.elem_bytes = w->elem_bytes;
      if (c.seq < 0) c.seq = w->seq;
      if (c.group < 0) c.group = w->group;
    } else {
      c.completion_known = works.empty();  // a call without its work: only its enqueue
    }
    result.push_back(c);
  }
  // Work without a call is the collective itself: every work when the trace holds no call (a
  // trimmed or CPU-worker-only trace), and a device kernel no call launched (an NCCL SendRecv
  // of pipeline parallelism, captured without NVTX ranges around it) even when other
  // collectives have calls: it was dropped before. Unpaired gloo work stays out (its call is
  // there, unpaired for the reason warned above).
  for (std::size_t w = 0; w < works.size(); ++w) {
    if (work_used[w] || (!calls.empty() && !works[w]->on_device)) continue;
    RankCollective c = collective_of(*works[w]);
    if (works[w]->on_device) c.device_begin_ns = works[w]->begin_ns;
    result.push_back(c);
  }
  std::sort(result.begin(), result.end(), [](const RankCollective& a, const RankCollective& b) {
    return a.arrival_ns < b.arrival_ns;
  });
  std::map<int, int> ordinal;
  int outside = 0;
  std::vector<RankCollective> kept;
  for (RankCollective& c : result) {
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

void assign_identities(const std::vector<RankTrace>& traces,
                       std::vector<std::vector<RankCollective>>& colls) {
  // Seq is the identity only when every collective of every file has one.
  bool any = false;
  bool all_seq = true;
  for (const auto& list : colls) {
    for (const RankCollective& c : list) {
      any = true;
      all_seq = all_seq && c.seq >= 0;
    }
  }
  all_seq = all_seq && any;
  using Key = std::tuple<int, std::string, std::int64_t>;
  std::map<Key, int> canonical;
  std::map<int, int> next;  // per step
  for (std::size_t r = 0; r < colls.size(); ++r) {
    std::map<std::pair<int, std::string>, std::int64_t> in_group;
    std::set<std::pair<int, int>> used;
    for (RankCollective& c : colls[r]) {
      const std::string group =
          c.group >= 0 ? traces[r].names[static_cast<std::uint32_t>(c.group)] : std::string();
      const Key key =
          all_seq ? Key{-1, group, c.seq} : Key{c.step, group, in_group[{c.step, group}]++};
      auto [it, inserted] = canonical.try_emplace(key, 0);
      if (inserted) it->second = next[c.step]++;
      c.ordinal = it->second;
      if (!used.insert({c.step, c.ordinal}).second) {
        throw UsageError(traces[r].file + ": step " + std::to_string(c.step) +
                         " holds two collectives with one identity (process group '" + group +
                         "', Seq " + std::to_string(c.seq) +
                         "): the ranks disagree on which step a collective belongs to");
      }
    }
  }
}

std::set<std::pair<int, int>> collectives_missing_members(
    const std::vector<RankTrace>& traces, const std::vector<std::vector<RankCollective>>& colls) {
  std::set<int> imported;
  for (const RankTrace& t : traces) imported.insert(t.rank);
  std::set<std::pair<int, int>> missing;
  for (std::size_t r = 0; r < traces.size(); ++r) {
    for (const RankCollective& c : colls[r]) {
      const auto& groups = traces[r].group_ranks;
      auto g = c.group >= 0 ? groups.find(traces[r].names[static_cast<std::uint32_t>(c.group)])
                            : groups.end();
      const bool whole =
          g != groups.end() && std::all_of(g->second.begin(), g->second.end(),
                                           [&](int member) { return imported.count(member) > 0; });
      if (!whole) missing.insert({c.step, c.ordinal});
    }
  }
  return missing;
}

CollectiveCheck check_collectives(const std::vector<RankTrace>& traces,
                                  const std::vector<std::vector<RankCollective>>& colls,
                                  bool partial) {
  std::map<std::pair<int, int>, std::vector<const RankCollective*>> by_key;
  const std::size_t ranks = traces.size();
  for (std::size_t r = 0; r < ranks; ++r) {
    for (const RankCollective& c : colls[r]) {
      auto& slot = by_key[{c.step, c.ordinal}];
      slot.resize(ranks, nullptr);
      slot[r] = &c;
    }
  }
  CollectiveCheck result;
  std::vector<std::string>& warnings = result.warnings;
  int incomplete = 0;
  std::string first_incomplete;
  for (const auto& entry : by_key) {
    const std::pair<int, int> key = entry.first;  // a copy: lambdas below capture it
    const std::vector<const RankCollective*>& members = entry.second;
    std::size_t ref = ranks;
    for (std::size_t r = 0; r < ranks; ++r) {
      const RankCollective* c = members[r];
      if (!c) {
        if (incomplete++ == 0) {
          first_incomplete = "step " + std::to_string(key.first) + " collective #" +
                             std::to_string(key.second) + " is missing in " + traces[r].file;
        }
        continue;
      }
      if (ref == ranks) {
        ref = r;
        continue;
      }
      const RankCollective& a = *members[ref];
      const RankTrace& ta = traces[ref];
      const RankTrace& tb = traces[r];
      auto fail = [&](const std::string& what, const std::string& va, const std::string& vb) {
        const std::string where = "step " + std::to_string(key.first) + " collective #" +
                                  std::to_string(key.second) + " has " + what + " " + va + " in " +
                                  ta.file + " but " + vb + " in " + tb.file;
        if (partial) {
          if (result.dropped.insert(key).second)
            warnings.push_back("collectives do not match (" + where + "): not stored");
          return;
        }
        throw UsageError("collectives do not match across ranks: step " +
                         std::to_string(key.first) + " collective #" + std::to_string(key.second) +
                         " has " + what + " " + va + " in " + ta.file + " (rank " +
                         std::to_string(ta.rank) + ") but " + vb + " in " + tb.file + " (rank " +
                         std::to_string(tb.rank) +
                         "): the files are not of one job, or a rank issued other collectives; "
                         "import files of one job (or pass --partial to keep only the matching "
                         "ones)");
      };
      if (ta.names[a.name] != tb.names[c->name]) fail("name", ta.names[a.name], tb.names[c->name]);
      if (a.numel >= 0 && c->numel >= 0 && a.numel != c->numel)
        fail("element count", std::to_string(a.numel), std::to_string(c->numel));
      if (a.seq >= 0 && c->seq >= 0 && a.seq != c->seq)
        fail("Seq", std::to_string(a.seq), std::to_string(c->seq));
      if (a.group >= 0 && c->group >= 0 && ta.names[a.group] != tb.names[c->group])
        fail("process group", ta.names[a.group], tb.names[c->group]);
    }
  }
  if (incomplete > 0) {
    warnings.push_back(std::to_string(incomplete) +
                       " collective(s) are not in every file (first: " + first_incomplete +
                       "); they are stored but take no part in matching");
  }
  return result;
}

}  // namespace culprit::importers
