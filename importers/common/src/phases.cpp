// Phases: the main thread's nested regions flattened into non-overlapping pieces, each named
// by the innermost label that holds its time (or, outside every label, the top-level op).
#include <algorithm>
#include <limits>
#include <map>

#include "culprit/importers/mapping.hpp"

namespace culprit::importers {
namespace {

struct Open {
  std::int64_t end_ns;
  std::uint32_t owner;
  bool label;
  bool in_op;  // this record is an operator or lies inside one
  const TraceRecord* record;
};

// Torch's autograd kernel records some operators again under their schema name inside the
// dispatcher's record: `aten::detach` holds `detach`. With integer-µs timestamps the child can
// start at its parent's end, after the parent closed: a record named as the operator that
// closed at most one timestamp resolution before it started is still that operator's.
bool renames(const NameTable& names, const TraceRecord* op, const TraceRecord& r) {
  if (op == nullptr || r.begin_ns - op->end_ns > kTorchTimestampResolution_ns) return false;
  const std::string& outer = names[op->name];
  const std::string& inner = names[r.name];
  return outer.size() > inner.size() + 2 && outer.ends_with(inner) &&
         outer.compare(outer.size() - inner.size() - 2, 2, "::") == 0;
}

struct Piece {
  std::int64_t begin_ns;
  std::int64_t end_ns;
  std::uint32_t owner;
  bool bare;  // directly inside a label, under no child op
};

bool is_step_marker(const RankSteps& steps, const TraceRecord& r) {
  const auto& s = steps.steps;
  auto it = std::lower_bound(s.begin(), s.end(), r.begin_ns,
                             [](const StepSpan& x, std::int64_t v) { return x.begin_ns < v; });
  return it != s.end() && it->begin_ns == r.begin_ns && it->end_ns == r.end_ns;
}

// The main thread's operators and labels (step markers left out), parents before children.
std::vector<const TraceRecord*> main_thread_regions(const RankTrace& trace,
                                                    const RankSteps& steps) {
  std::vector<const TraceRecord*> main;
  for (const TraceRecord& r : trace.records) {
    if (r.on_device || r.thread != steps.main_thread) continue;
    if (r.kind != RecordKind::kOp && r.kind != RecordKind::kLabel) continue;
    if (r.kind == RecordKind::kLabel && !steps.whole_capture && is_step_marker(steps, r)) continue;
    main.push_back(&r);
  }
  // Equal spans keep the file's order, parents first (integer µs: `aten::detach` and its child
  // `detach` can both be [2898, 2899]).
  std::stable_sort(main.begin(), main.end(), [](const TraceRecord* a, const TraceRecord* b) {
    return a->begin_ns != b->begin_ns ? a->begin_ns < b->begin_ns : a->end_ns > b->end_ns;
  });
  return main;
}

// Walks the nesting and cuts it into pieces, each owned by the innermost label around it. Where
// the trace does not say a record's kind (legacy, NVTX: the kind comes from the name), a record
// inside an operator is part of that operator whatever its name: torch records `aten::detach`
// with a child named `detach`, and such a child must not split the label around it (nor when
// rounding starts it at its parent's end: renames). A child may end up to a microsecond after
// its parent (integer-µs rounding): it is clamped.
std::vector<Piece> cut_pieces(const std::vector<const TraceRecord*>& regions,
                              const NameTable& names, bool kinds_from_names) {
  std::vector<Piece> pieces;
  std::vector<Open> stack;
  const TraceRecord* closed_op = nullptr;  // the operator closed last
  std::int64_t cursor = std::numeric_limits<std::int64_t>::min();
  auto emit = [&](std::int64_t from, std::int64_t to, const Open& top) {
    if (to > from) pieces.push_back({from, to, top.owner, top.label});
  };
  auto close_until = [&](std::int64_t t) {
    while (!stack.empty() && stack.back().end_ns <= t) {
      emit(cursor, stack.back().end_ns, stack.back());
      cursor = std::max(cursor, stack.back().end_ns);
      if (!stack.back().label) closed_op = stack.back().record;
      stack.pop_back();
    }
  };
  for (const TraceRecord* r : regions) {
    close_until(r->begin_ns);
    if (!stack.empty()) emit(cursor, r->begin_ns, stack.back());
    cursor = std::max(cursor, r->begin_ns);
    std::int64_t end = r->end_ns;
    if (!stack.empty()) end = std::min(end, stack.back().end_ns);
    const bool parent_op = !stack.empty() && stack.back().in_op;
    const bool label = r->kind == RecordKind::kLabel &&
                       !(kinds_from_names && (parent_op || renames(names, closed_op, *r)));
    const std::uint32_t owner = label || stack.empty() ? r->name : stack.back().owner;
    stack.push_back({end, owner, label, !label || parent_op, r});
  }
  close_until(std::numeric_limits<std::int64_t>::max());
  return pieces;
}

// The waiting rule. A thread blocked on a collective sits in a bare stretch that begins while
// the collective is in flight: the stretch's part up to the collective's recorded completion is
// waiting, the rest (if any) is the label's work. A collective is waited for inside one label of
// its own step, the first whose bare stretch begins while it is in flight (DDP's end of backward
// waits for each bucket in turn, with the copy of each bucket's gradients between the waits).
// Completions alone do not decide it: a gloo worker records an execution's end up to
// milliseconds after it woke the main thread, so that tail overlaps what the thread does next (a
// previous step's tail lands inside the next step's compute, a step's own tail inside the next
// label); on a loaded machine the main thread also resumes milliseconds after the completion,
// and that is not waiting for a peer.
class Waiting {
 public:
  // A blocked thread sleeps and is woken: no wait is shorter. The gaps of a few µs between
  // operators while a collective is in flight (the autograd engine between two nodes) are the
  // label's, so that they do not cut it into pieces.
  static constexpr std::int64_t kShortestWait_ns = 100'000;

  explicit Waiting(const std::vector<RankCollective>& collectives) {
    for (const RankCollective& c : collectives)
      flights_[c.step].push_back({c.arrival_ns, c.completion_ns, kNobody});
  }

  // The end of the waiting at the start of bare piece p of `step` (p.begin_ns when none).
  std::int64_t waited_until(const Piece& p, int step) {
    auto it = flights_.find(step);
    if (!p.bare || it == flights_.end()) return p.begin_ns;
    std::int64_t until = p.begin_ns;
    for (Flight& f : it->second) {
      if (f.arrival_ns > p.begin_ns || f.completion_ns <= p.begin_ns) continue;
      if (f.label != kNobody && f.label != p.owner) continue;
      until = std::max(until, std::min(f.completion_ns, p.end_ns));
    }
    if (until - p.begin_ns < kShortestWait_ns) return p.begin_ns;
    for (Flight& f : it->second) {
      if (f.arrival_ns <= p.begin_ns && f.completion_ns > p.begin_ns && f.label == kNobody)
        f.label = p.owner;
    }
    return until;
  }

 private:
  static constexpr std::uint32_t kNobody = std::numeric_limits<std::uint32_t>::max();
  struct Flight {
    std::int64_t arrival_ns;
    std::int64_t completion_ns;
    std::uint32_t label;  // the label it is waited for in, kNobody before its first wait
  };
  std::map<int, std::vector<Flight>> flights_;
};

}  // namespace

std::vector<Phase> flatten_phases(const RankTrace& trace, const RankSteps& steps,
                                  const std::vector<RankCollective>& collectives) {
  const bool kinds_from_names = trace.format != "kineto";
  const std::vector<Piece> pieces =
      cut_pieces(main_thread_regions(trace, steps), trace.names, kinds_from_names);
  Waiting waiting(collectives);
  std::vector<Phase> phases;
  std::map<std::pair<int, std::uint32_t>, int> occurrences;
  bool previous_dropped = true;  // never merge across a dropped piece
  for (Piece p : pieces) {
    const int step = step_at(steps, p.begin_ns);
    const std::int64_t waited = step < 0 ? p.end_ns : waiting.waited_until(p, step);
    if (waited > p.begin_ns) previous_dropped = true;
    p.begin_ns = waited;
    if (p.begin_ns >= p.end_ns) continue;
    if (!previous_dropped && phases.back().end_ns == p.begin_ns && phases.back().name == p.owner) {
      phases.back().end_ns = p.end_ns;
      continue;
    }
    previous_dropped = false;
    phases.push_back({p.begin_ns, p.end_ns, p.owner, step, occurrences[{step, p.owner}]++});
  }
  // A merged phase could run past its step's end only through clamping rounding; keep them
  // inside their step so that step spans stay exact.
  for (Phase& ph : phases) {
    auto it = std::find_if(steps.steps.begin(), steps.steps.end(),
                           [&](const StepSpan& s) { return s.step == ph.step; });
    if (it != steps.steps.end()) ph.end_ns = std::min(ph.end_ns, it->end_ns);
  }
  std::erase_if(phases, [](const Phase& ph) { return ph.end_ns <= ph.begin_ns; });
  return phases;
}

const Phase* phase_at(const std::vector<Phase>& phases, std::int64_t t) {
  auto it = std::upper_bound(phases.begin(), phases.end(), t,
                             [](std::int64_t v, const Phase& p) { return v < p.begin_ns; });
  if (it == phases.begin()) return nullptr;
  --it;
  return t < it->end_ns ? &*it : nullptr;
}

}  // namespace culprit::importers
