// Steps: ProfilerStep#N (kept as N) or, for NVTX, ranges matching a configurable pattern.
#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <set>

#include "culprit/errors.hpp"
#include "culprit/importers/mapping.hpp"

namespace culprit::importers {

std::optional<int> profiler_step_number(std::string_view name) {
  constexpr std::string_view prefix = "ProfilerStep#";
  if (name.substr(0, prefix.size()) != prefix || name.size() == prefix.size()) return std::nullopt;
  int n = 0;
  const char* first = name.data() + prefix.size();
  const char* last = name.data() + name.size();
  auto [end, ec] = std::from_chars(first, last, n);
  if (ec != std::errc() || end != last || n < 0) return std::nullopt;
  return n;
}

namespace {

// libstdc++'s regex executor recurses once per character: a pattern such as "step(\d+).*" run
// over a label of ~100 k characters overflowed the stack (fuzz_import_kineto). No step marker
// is that long, so longer labels are never matched.
constexpr std::size_t kMaxStepLabelChars = 4096;

// The thread with the most of something.
std::int64_t busiest(const std::map<std::int64_t, int>& count) {
  return std::max_element(count.begin(), count.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

// nsys exports have no ProfilerStep#: the NVTX label that repeats most often as an outermost
// range on its thread (at least twice; ties: the most time), its ranges together covering at
// least half of that thread's time, is the step (a loop's step covers most of it; a small
// label repeated at the top, such as emit_nvtx's "detach_", does not). {name, count}, or
// {0, 0} when no label qualifies.
std::pair<std::uint32_t, int> repeated_outermost_label(const RankTrace& trace) {
  std::vector<const TraceRecord*> labels;
  for (const TraceRecord& r : trace.records) {
    if (r.kind == RecordKind::kLabel && !r.on_device) labels.push_back(&r);
  }
  std::sort(labels.begin(), labels.end(), [](const TraceRecord* a, const TraceRecord* b) {
    if (a->thread != b->thread) return a->thread < b->thread;
    return a->begin_ns != b->begin_ns ? a->begin_ns < b->begin_ns : a->end_ns > b->end_ns;
  });
  std::map<std::pair<std::int64_t, std::uint32_t>, std::pair<int, std::int64_t>> top;
  std::int64_t thread = 0, open_end = std::numeric_limits<std::int64_t>::min();
  for (const TraceRecord* r : labels) {
    if (r->thread != thread) open_end = std::numeric_limits<std::int64_t>::min();
    thread = r->thread;
    if (r->begin_ns < open_end) continue;  // nested in an open outermost range
    open_end = r->end_ns;
    auto& [count, ns] = top[{r->thread, r->name}];
    ++count;
    ns += r->end_ns - r->begin_ns;
  }
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> extent;  // thread -> [lo, hi]
  for (const TraceRecord& r : trace.records) {
    if (r.on_device) continue;
    auto [it, fresh] = extent.try_emplace(r.thread, r.begin_ns, r.end_ns);
    if (!fresh) {
      it->second.first = std::min(it->second.first, r.begin_ns);
      it->second.second = std::max(it->second.second, r.end_ns);
    }
  }
  std::pair<std::uint32_t, int> best{0, 0};
  std::int64_t best_ns = -1;
  for (const auto& [key, value] : top) {
    const auto& [lo, hi] = extent[key.first];
    if (value.first < 2 || 2 * value.second < hi - lo) continue;
    if (value.first > best.second || (value.first == best.second && value.second > best_ns)) {
      best = {key.second, value.first};
      best_ns = value.second;
    }
  }
  return best;
}

}  // namespace

namespace {

// Which labels are steps, each name judged once: -2 not a step, >= 0 the step number, -3 a step
// numbered in order.
class StepLabels {
 public:
  static constexpr int kNotAStep = -2;
  static constexpr int kInOrder = -3;

  StepLabels(const RankTrace& trace, const StepRule& rule)
      : trace_(trace),
        // The default rule needs no regex (compiling one costs more than reading a small trace).
        profiler_steps_(rule.pattern == StepRule{}.pattern),
        verdict_(trace.names.size(), kUnknown) {
    try {
      if (!profiler_steps_) pattern_ = std::regex(rule.pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw UsageError("step pattern '" + rule.pattern + "' is not a valid regex: " + e.what());
    }
  }

  int operator()(std::uint32_t id) {
    if (verdict_[id] == kUnknown) verdict_[id] = judge(trace_.names[id]);
    return verdict_[id];
  }
  void make_step(std::uint32_t id) { verdict_[id] = kInOrder; }

  // Step marks per CPU thread.
  std::map<std::int64_t, int> per_thread() {
    std::map<std::int64_t, int> count;
    for (const TraceRecord& r : trace_.records) {
      if (r.kind == RecordKind::kLabel && !r.on_device && (*this)(r.name) != kNotAStep)
        ++count[r.thread];
    }
    return count;
  }

 private:
  static constexpr int kUnknown = -1;

  int judge(const std::string& name) const {
    if (profiler_steps_) {
      const int v = profiler_step_number(name).value_or(kNotAStep);
      constexpr std::string_view prefix = "ProfilerStep#";
      if (v == kNotAStep && name.rfind(prefix, 0) == 0) {
        int n = 0;
        refuse_if_too_large(
            name, std::from_chars(name.data() + prefix.size(), name.data() + name.size(), n).ec);
      }
      return v;
    }
    std::smatch m;
    if (name.size() > kMaxStepLabelChars || !std::regex_search(name, m, pattern_)) return kNotAStep;
    if (m.size() < 2 || !m[1].matched) return kInOrder;
    int n = 0;
    const std::string digits = m[1].str();
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    refuse_if_too_large(name, ec);
    return ec == std::errc() && end == digits.data() + digits.size() && n >= 0 ? n : kInOrder;
  }

  // A step number past int is refused: read as no step, its step vanished without a word.
  void refuse_if_too_large(const std::string& name, std::errc ec) const {
    if (ec != std::errc::result_out_of_range) return;
    throw UsageError(
        trace_.file + ": step label '" + name.substr(0, 80) + "': the step number is beyond " +
        std::to_string(std::numeric_limits<int>::max()) + " (the file is damaged or was edited)");
  }

  const RankTrace& trace_;
  bool profiler_steps_;
  std::regex pattern_;
  std::vector<int> verdict_;
};

// No step marker: the whole capture is step 0 on the busiest CPU thread.
RankSteps whole_capture(RankTrace& trace, const StepRule& rule) {
  std::map<std::int64_t, int> records;
  std::int64_t lo = std::numeric_limits<std::int64_t>::max();
  std::int64_t hi = std::numeric_limits<std::int64_t>::min();
  for (const TraceRecord& r : trace.records) {
    lo = std::min(lo, r.begin_ns);
    hi = std::max(hi, r.end_ns);
    if (!r.on_device) ++records[r.thread];
  }
  if (trace.records.empty()) {
    throw UsageError(trace.file + ": no timed event in the trace: is it a profile of the job?");
  }
  RankSteps result;
  result.whole_capture = true;
  result.main_thread = records.empty() ? 0 : busiest(records);
  result.steps.push_back({0, lo, hi});
  trace.warnings.push_back(trace.file + ": no step marker matching '" + rule.pattern +
                           "': the whole capture is one step (step 0)");
  return result;
}

// The main thread's step marks in time order -> steps; overlapping marks are ignored (warned),
// numbers must increase.
std::vector<StepSpan> step_spans(RankTrace& trace, StepLabels& labels, std::int64_t main_thread) {
  std::vector<const TraceRecord*> marks;
  for (const TraceRecord& r : trace.records) {
    if (r.kind == RecordKind::kLabel && !r.on_device && r.thread == main_thread &&
        labels(r.name) != StepLabels::kNotAStep)
      marks.push_back(&r);
  }
  std::sort(marks.begin(), marks.end(),
            [](const TraceRecord* a, const TraceRecord* b) { return a->begin_ns < b->begin_ns; });
  std::vector<StepSpan> steps;
  int ordinal = 0;
  std::int64_t previous_end = std::numeric_limits<std::int64_t>::min();
  for (const TraceRecord* r : marks) {
    const int v = labels(r->name);
    const int number = v >= 0 ? v : ordinal;
    ++ordinal;
    if (r->begin_ns < previous_end) {
      trace.warnings.push_back(trace.file + ": step marker '" + trace.names[r->name] +
                               "' overlaps the previous step: ignored");
      continue;
    }
    if (!steps.empty() && number <= steps.back().step) {
      throw UsageError(trace.file + ": step '" + trace.names[r->name] + "' does not follow step " +
                       std::to_string(steps.back().step) +
                       ": step numbers must increase; is this file a merge of two captures?");
    }
    steps.push_back({number, r->begin_ns, r->end_ns});
    previous_end = r->end_ns;
  }
  return steps;
}

}  // namespace

RankSteps find_steps(RankTrace& trace, const StepRule& rule) {
  StepLabels labels(trace, rule);
  std::map<std::int64_t, int> per_thread = labels.per_thread();
  if (per_thread.empty() && trace.format == "nsys") {
    const auto [name, count] = repeated_outermost_label(trace);
    if (count >= 2) {
      labels.make_step(name);
      per_thread = labels.per_thread();
      trace.warnings.push_back(trace.file + ": no step marker matching '" + rule.pattern +
                               "': steps are the repeated outermost NVTX range '" +
                               trace.names[name].substr(0, 80) + "' (" + std::to_string(count) +
                               " times; --step-pattern chooses others)");
    }
  }
  if (per_thread.empty()) return whole_capture(trace, rule);
  RankSteps result;
  result.main_thread = busiest(per_thread);
  result.steps = step_spans(trace, labels, result.main_thread);
  return result;
}

int step_at(const RankSteps& steps, std::int64_t t) {
  const auto& s = steps.steps;
  auto it = std::upper_bound(s.begin(), s.end(), t,
                             [](std::int64_t v, const StepSpan& x) { return v < x.begin_ns; });
  if (it == s.begin()) return -1;
  --it;
  return t <= it->end_ns ? it->step : -1;
}

std::set<int> steps_cut_short(const std::vector<RankTrace>& traces,
                              const std::vector<std::vector<RankCollective>>& colls,
                              std::vector<std::string>& warnings) {
  std::set<int> cut;
  for (std::size_t r = 0; r < traces.size(); ++r) {
    std::map<int, int> calls;  // step -> calls without their execution
    for (const RankCollective& c : colls[r]) {
      if (!c.completion_known) ++calls[c.step];
    }
    if (calls.empty()) continue;
    std::string list;
    for (const auto& [step, n] : calls) {
      cut.insert(step);
      if (list.size() < 200)
        list += (list.empty() ? "" : ", ") + std::to_string(step) + " (" + std::to_string(n) + ")";
    }
    warnings.push_back(traces[r].file + ": collective call(s) without their execution in step(s) " +
                       list +
                       ": the profiler stopped before the worker recorded the last execution (or "
                       "the trace is sampled), so the rank's waiting and the completion there are "
                       "unknown: those steps are left out");
  }
  return cut;
}

}  // namespace culprit::importers
