// Phases: the main thread's nested regions flattened into non-overlapping pieces, each named
// by the innermost label that holds its time (or, outside every label, the top-level op).
#include <algorithm>
#include <limits>
#include <map>

#include "culprit/importers/mapping.hpp"

namespace culprit::importers {
namespace {

// A child may end up to a microsecond after its parent (integer-µs rounding): it is clamped.
struct Open {
  std::int64_t end_ns;
  std::uint32_t owner;
  bool label;
};

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

// The worker thread may record a completion a little after it woke the main thread.
constexpr std::int64_t kWakeTolerance_ns = 100'000;

}  // namespace

std::vector<Phase> flatten_phases(const RankTrace& trace, const RankSteps& steps,
                                  const std::vector<RankCollective>& collectives) {
  std::vector<const TraceRecord*> main;
  for (const TraceRecord& r : trace.records) {
    if (r.on_device || r.thread != steps.main_thread) continue;
    if (r.kind != RecordKind::kOp && r.kind != RecordKind::kLabel) continue;
    if (r.kind == RecordKind::kLabel && !steps.whole_capture && is_step_marker(steps, r)) continue;
    main.push_back(&r);
  }
  std::sort(main.begin(), main.end(), [](const TraceRecord* a, const TraceRecord* b) {
    return a->begin_ns != b->begin_ns ? a->begin_ns < b->begin_ns : a->end_ns > b->end_ns;
  });

  std::vector<Piece> pieces;
  std::vector<Open> stack;
  std::int64_t cursor = std::numeric_limits<std::int64_t>::min();
  auto emit = [&](std::int64_t from, std::int64_t to, const Open& top) {
    if (to > from) pieces.push_back({from, to, top.owner, top.label});
  };
  auto close_until = [&](std::int64_t t) {
    while (!stack.empty() && stack.back().end_ns <= t) {
      emit(cursor, stack.back().end_ns, stack.back());
      cursor = std::max(cursor, stack.back().end_ns);
      stack.pop_back();
    }
  };
  for (const TraceRecord* r : main) {
    close_until(r->begin_ns);
    if (!stack.empty()) emit(cursor, r->begin_ns, stack.back());
    cursor = std::max(cursor, r->begin_ns);
    std::int64_t end = r->end_ns;
    if (!stack.empty()) end = std::min(end, stack.back().end_ns);
    const bool label = r->kind == RecordKind::kLabel;
    const std::uint32_t owner = label || stack.empty() ? r->name : stack.back().owner;
    stack.push_back({end, owner, label});
  }
  close_until(std::numeric_limits<std::int64_t>::max());

  // Completions of the rank's collectives, for the waiting rule.
  std::vector<std::pair<std::int64_t, std::int64_t>> flights;  // (completion, arrival)
  for (const RankCollective& c : collectives) flights.emplace_back(c.completion_ns, c.arrival_ns);
  std::sort(flights.begin(), flights.end());
  auto waiting = [&](const Piece& p) {
    if (!p.bare) return false;
    auto it =
        std::upper_bound(flights.begin(), flights.end(),
                         std::make_pair(p.begin_ns, std::numeric_limits<std::int64_t>::max()));
    for (; it != flights.end() && it->first <= p.end_ns + kWakeTolerance_ns; ++it) {
      if (it->second < p.end_ns) return true;
    }
    return false;
  };

  std::vector<Phase> phases;
  std::map<std::pair<int, std::uint32_t>, int> occurrences;
  bool previous_waiting = true;
  for (const Piece& p : pieces) {
    if (waiting(p)) {
      previous_waiting = true;
      continue;
    }
    if (!phases.empty() && !previous_waiting && phases.back().end_ns == p.begin_ns &&
        phases.back().name == p.owner) {
      phases.back().end_ns = p.end_ns;
      continue;
    }
    previous_waiting = false;
    const int step = step_at(steps, p.begin_ns);
    if (step < 0) {
      previous_waiting = true;  // never merge across a dropped piece
      continue;
    }
    Phase ph;
    ph.begin_ns = p.begin_ns;
    ph.end_ns = p.end_ns;
    ph.name = p.owner;
    ph.step = step;
    ph.occurrence = occurrences[{step, p.owner}]++;
    phases.push_back(ph);
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
