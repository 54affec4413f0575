// One rank's events in the run file: its steps, the phases its nested regions flatten to, its
// collectives (identities already assigned across ranks) and its device kernels under the region
// that launched them.
#include <algorithm>
#include <map>

#include "culprit/errors.hpp"
#include "run_parts.hpp"

namespace culprit::importers {
namespace {

// Device pieces are numbered from here in `microbatch`, so that they never pair with the host
// pieces of the same label in the phase statistics (meta device_microbatch_base says it).
// Pieces beyond the range share the last number (the analysis keys instances on 16 bits).
constexpr int kDeviceOccurrenceBase = 30000;
constexpr int kMaxOccurrence = 65000;

// An event of `rank` in `step` named `name` over [begin_ns, end_ns]; the rest of its identifiers
// are the caller's.
runfile::EventRecord timed_event(runfile::EventKind kind, std::int32_t rank, int step,
                                 std::uint16_t name, std::int64_t begin_ns, std::int64_t end_ns) {
  return {.begin_ns = begin_ns,
          .end_ns = end_ns,
          .rank = rank,
          .step = step,
          .name = name,
          .kind = kind};
}

std::vector<Phase> add_phases(const RankInput& in, GlobalNames& names,
                              runfile::RunFileContents& c) {
  const RankTrace& t = *in.trace;
  std::vector<Phase> phases = flatten_phases(t, *in.steps, *in.collectives);
  for (const Phase& p : phases) {
    runfile::EventRecord e = timed_event(runfile::EventKind::kCompute, in.rank, p.step,
                                         names.id(t.names[p.name]), p.begin_ns, p.end_ns);
    e.microbatch = std::min(p.occurrence, kDeviceOccurrenceBase - 1);
    c.events.push_back(e);
  }
  return phases;
}

void add_collectives(const RankInput& in, GlobalNames& names, runfile::RunFileContents& c,
                     ImportSummary& s) {
  for (const RankCollective& k : *in.collectives) {
    runfile::EventRecord e =
        timed_event(runfile::EventKind::kCollective, in.rank, k.step,
                    names.id(in.trace->names[k.name]), k.arrival_ns, k.completion_ns);
    e.seq = k.ordinal;
    if (k.numel <= 0 || __builtin_mul_overflow(k.numel, std::max(k.elem_bytes, 1), &e.bytes))
      e.bytes = 0;  // no message size: no bandwidth is computed from it
    c.events.push_back(e);
    ++s.collectives;
  }
}

// Launch time of each kernel (runtime call on the step's thread), by correlation id.
std::map<std::int64_t, std::int64_t> main_thread_launches(const RankInput& in) {
  std::map<std::int64_t, std::int64_t> launch_at;
  for (const TraceRecord& x : in.trace->records) {
    if (x.kind == RecordKind::kRuntime && x.correlation >= 0 && !x.on_device &&
        x.thread == in.steps->main_thread)
      launch_at[x.correlation] = x.begin_ns;
  }
  return launch_at;
}

// Kernels under their launching region (runtime call -> correlation id -> kernel); a
// collective's kernel is its device-side arrival (the call is the host-side one) and keeps its
// own name. Copies and memsets are counted only.
void add_kernels(const RankInput& in, const std::vector<Phase>& phases, GlobalNames& names,
                 runfile::RunFileContents& c, ImportSummary& s, ClassCounts& classes) {
  const RankTrace& t = *in.trace;
  const std::map<std::int64_t, std::int64_t> launch_at = main_thread_launches(in);
  std::map<std::pair<int, std::uint16_t>, int> occurrence;
  int outside = 0;
  for (const TraceRecord& x : t.records) {
    if (!x.on_device) continue;
    const KernelClass kind = t.kernel_classes.of(t.names, x.name).kind;
    if (x.kind == RecordKind::kOther) {  // copies, memsets, GPU annotations: counted only
      if (kind == KernelClass::kMemcpy || kind == KernelClass::kMemset)
        ++classes[static_cast<std::size_t>(kind)];
      continue;
    }
    if (x.kind != RecordKind::kKernel && x.kind != RecordKind::kCollectiveWork) continue;
    ++s.kernels;
    ++classes[static_cast<std::size_t>(kind)];
    auto launch = launch_at.find(x.correlation);
    const std::int64_t when = launch != launch_at.end() ? launch->second : x.begin_ns;
    const int step = step_at(*in.steps, when);
    if (step < 0) {
      ++outside;
      continue;
    }
    const Phase* region = launch != launch_at.end() && x.kind == RecordKind::kKernel
                              ? phase_at(phases, when)
                              : nullptr;
    runfile::EventRecord e = timed_event(runfile::EventKind::kCompute, in.rank, step,
                                         names.id(region ? t.names[region->name] : t.names[x.name]),
                                         x.begin_ns, x.end_ns);
    e.microbatch = std::min(kDeviceOccurrenceBase + occurrence[{step, e.name}]++, kMaxOccurrence);
    e.device = x.device;
    e.stream = static_cast<std::int16_t>(x.thread);
    c.events.push_back(e);
  }
  if (outside > 0) {
    s.warnings.push_back(t.file + ": " + std::to_string(outside) +
                         " kernel(s) outside every step are not kept");
  }
}

}  // namespace

std::uint16_t GlobalNames::id(const std::string& name) {
  auto [it, inserted] = index_.try_emplace(name, c_.names.size());
  if (inserted) {
    if (c_.names.size() >= 65535)
      throw UsageError("the traces hold more than 65,535 distinct event names: not supported");
    c_.names.push_back(name);
  }
  return static_cast<std::uint16_t>(it->second);
}

int device_microbatch_base() {
  return kDeviceOccurrenceBase;
}

void add_rank_events(const RankInput& in, GlobalNames& names, runfile::RunFileContents& c,
                     ImportSummary& s, ClassCounts& classes) {
  const std::uint16_t step_name = names.id("step");
  for (const StepSpan& x : in.steps->steps) {
    c.events.push_back(
        timed_event(runfile::EventKind::kStep, in.rank, x.step, step_name, x.begin_ns, x.end_ns));
  }
  const std::vector<Phase> phases = add_phases(in, names, c);
  add_collectives(in, names, c, s);
  add_kernels(in, phases, names, c, s, classes);
}

}  // namespace culprit::importers
