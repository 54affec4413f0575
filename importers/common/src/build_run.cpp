// Records of every rank -> the run file's contents (steps, phases, collectives, kernels, clock
// models, meta, provenance, configuration echo). Only the runfile library (culprit_runfile)
// writes the file.
#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>

#include "culprit/errors.hpp"
#include "culprit/importers/import.hpp"
#include "runfile/meta_keys.hpp"

namespace culprit::importers {
namespace {

// Device pieces are numbered from here in `microbatch`, so that they never pair with the host
// pieces of the same label in the phase statistics.
// Pieces beyond the range share the last number (the analysis keys instances on 16 bits).
constexpr int kDeviceOccurrenceBase = 30000;
constexpr int kMaxOccurrence = 65000;

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

class GlobalNames {
 public:
  explicit GlobalNames(stepclock::RunFileContents& c) : c_(c) {}
  std::uint16_t id(const std::string& name) {
    auto [it, inserted] = index_.try_emplace(name, c_.names.size());
    if (inserted) {
      if (c_.names.size() >= 65535)
        throw UsageError("the traces hold more than 65,535 distinct event names: not supported");
      c_.names.push_back(name);
    }
    return static_cast<std::uint16_t>(it->second);
  }

 private:
  stepclock::RunFileContents& c_;
  std::map<std::string, std::size_t> index_;
};

void order_ranks(std::vector<RankTrace>& traces, const ImportOptions& o, ImportSummary& s) {
  if (traces.size() == 1 && traces[0].rank < 0) {
    traces[0].rank = 0;
    traces[0].rank_source = "single file";
    s.warnings.push_back(traces[0].file +
                         ": the file does not say its rank: taken as rank 0 of a "
                         "1-rank job");
  }
  for (const RankTrace& t : traces) {
    if (t.rank < 0) {
      throw UsageError(t.file +
                       ": cannot tell which rank this file is (no distributedInfo.rank "
                       "and no rank<R> in the file name): rename it rank<R>.json");
    }
  }
  std::stable_sort(traces.begin(), traces.end(),
                   [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
  int world = 0;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    if (i > 0 && traces[i].rank == traces[i - 1].rank) {
      throw UsageError(traces[i - 1].file + " and " + traces[i].file + " are both rank " +
                       std::to_string(traces[i].rank) + ": give one file per rank");
    }
    world = std::max({world, traces[i].world_size, traces[i].rank + 1});
    if (traces[i].format != traces[0].format) {
      throw UsageError(traces[i].file + " is " + traces[i].format + " but " + traces[0].file +
                       " is " + traces[0].format + ": import one job's files, in one format");
    }
  }
  s.world_size = world;
  if (static_cast<int>(traces.size()) != world) {
    std::string missing;
    int listed = 0;
    std::size_t k = 0;
    for (int r = 0; r < world && listed < 8; ++r) {
      while (k < traces.size() && traces[k].rank < r) ++k;
      if (k < traces.size() && traces[k].rank == r) continue;
      missing += (listed++ ? ", " : "") + std::to_string(r);
    }
    if (!o.partial) {
      throw UsageError("the job has " + std::to_string(world) + " ranks but " +
                       std::to_string(traces.size()) + " file(s) were given (missing rank(s) " +
                       missing + (world - static_cast<int>(traces.size()) > listed ? ", ..." : "") +
                       "): give every rank's file, or pass --partial to import a subset");
    }
    s.partial = true;
    s.warnings.push_back("partial import: " + std::to_string(traces.size()) + " of " +
                         std::to_string(world) +
                         " ranks; collectives are matched among the imported ranks only");
  }
}

// Every rank's rule (rank_source less the rank's own process and device), the distinct ones
// in rank order joined by "; ".
std::string rank_rule(const std::vector<RankTrace>& traces) {
  std::vector<std::string> rules;
  for (const RankTrace& t : traces) {
    std::string rule = t.rank_source.substr(0, t.rank_source.find(" (process "));
    if (t.format == "nsys" && t.process >= 0)
      rule = (t.device >= 0 ? "a rank per (process, GPU) of the export; number from "
                            : "a rank per process of the export; number from ") +
             rule;
    if (std::find(rules.begin(), rules.end(), rule) == rules.end()) rules.push_back(rule);
  }
  std::string out;
  for (const std::string& r : rules) out += (out.empty() ? "" : "; ") + r;
  return out;
}

// An event of `rank` in `step` named `name` over [begin_ns, end_ns]; the rest of its identifiers
// are the caller's.
stepclock::EventRecord timed_event(stepclock::EventKind kind, std::int32_t rank, int step,
                                   std::uint16_t name, std::int64_t begin_ns, std::int64_t end_ns) {
  return {.begin_ns = begin_ns,
          .end_ns = end_ns,
          .rank = rank,
          .step = step,
          .name = name,
          .kind = kind};
}

}  // namespace

ImportedRun build_run(std::vector<RankTrace> traces, const ImportOptions& o) {
  if (traces.empty()) throw UsageError("import needs at least one trace file");
  ImportedRun out;
  ImportSummary& s = out.summary;
  order_ranks(traces, o, s);
  s.rank_rule = rank_rule(traces);
  const std::size_t ranks = traces.size();
  s.format = traces[0].format;
  s.ranks = static_cast<int>(ranks);

  std::vector<RankSteps> steps(ranks);
  std::vector<std::vector<RankCollective>> colls(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    steps[r] = find_steps(traces[r], o.steps);
    colls[r] = rank_collectives(traces[r], steps[r]);
  }
  // Steps every rank recorded; the others are left out (an incomplete step would end the
  // usable timeline of the analysis).
  std::set<int> common;
  for (const StepSpan& x : steps[0].steps) common.insert(x.step);
  for (std::size_t r = 1; r < ranks; ++r) {
    std::set<int> mine;
    for (const StepSpan& x : steps[r].steps) mine.insert(x.step);
    std::set<int> both;
    std::set_intersection(common.begin(), common.end(), mine.begin(), mine.end(),
                          std::inserter(both, both.begin()));
    common = std::move(both);
  }
  for (std::size_t r = 0; r < ranks; ++r) {
    const std::size_t before = steps[r].steps.size();
    std::erase_if(steps[r].steps, [&](const StepSpan& x) { return !common.count(x.step); });
    if (steps[r].steps.size() != before) {
      s.warnings.push_back(traces[r].file + ": " + std::to_string(before - steps[r].steps.size()) +
                           " step(s) not recorded by every rank are left out");
    }
    std::erase_if(colls[r], [&](const RankCollective& c) { return !common.count(c.step); });
  }
  if (common.empty()) {
    throw UsageError("no step is recorded in every file (" + traces[0].file +
                     " and the others share none): are they of one job and one profiling window?");
  }
  s.steps = static_cast<int>(common.size());

  assign_identities(traces, colls);
  const CollectiveCheck check = check_collectives(traces, colls, o.partial);
  s.warnings.insert(s.warnings.end(), check.warnings.begin(), check.warnings.end());
  for (auto& list : colls) {
    std::erase_if(list, [&](const RankCollective& c) {
      return check.dropped.count({c.step, c.ordinal}) > 0;
    });
  }
  std::vector<RankClock> clocks = clock_models(colls, steps);
  // Ranks read from one export share its clock exactly (nsys: one session's timestamps).
  std::vector<bool> same_clock(ranks, false);
  for (std::size_t r = 1; r < ranks; ++r) {
    if (traces[r].clock_domain.empty() || traces[r].clock_domain != traces[0].clock_domain)
      continue;
    clocks[r] = RankClock{};
    same_clock[r] = true;
  }
  // Per collective, whether members are missing (meta incomplete_collectives: "step:seq ...").
  std::string incomplete;
  if (s.partial) {
    for (const auto& [step, seq] : collectives_missing_members(traces, colls)) {
      incomplete +=
          (incomplete.empty() ? "" : " ") + std::to_string(step) + ":" + std::to_string(seq);
      ++s.incomplete_collectives;
    }
  }

  const int first_step = *common.begin();
  const int warmup_until = first_step + std::max(0, o.warmup_steps);
  GemmTotals gemm;
  std::array<std::int64_t, static_cast<std::size_t>(KernelClass::kOther) + 1> class_counts{};

  stepclock::RunFileContents& c = out.contents;
  GlobalNames names(c);
  const std::uint16_t step_name = names.id("step");
  for (std::size_t r = 0; r < ranks; ++r) {
    RankTrace& t = traces[r];
    // The job's rank id, also in a partial import (its ranks 2 and 3 stay 2 and 3).
    const auto rank = static_cast<std::int32_t>(t.rank);
    s.files.push_back(t.file);
    s.events_read += t.events_read;
    for (const StepSpan& x : steps[r].steps) {
      c.events.push_back(
          timed_event(stepclock::EventKind::kStep, rank, x.step, step_name, x.begin_ns, x.end_ns));
    }
    const std::vector<Phase> phases = flatten_phases(t, steps[r], colls[r]);
    for (const Phase& p : phases) {
      stepclock::EventRecord e = timed_event(stepclock::EventKind::kCompute, rank, p.step,
                                             names.id(t.names[p.name]), p.begin_ns, p.end_ns);
      e.microbatch = std::min(p.occurrence, kDeviceOccurrenceBase - 1);
      c.events.push_back(e);
    }
    for (const RankCollective& k : colls[r]) {
      stepclock::EventRecord e =
          timed_event(stepclock::EventKind::kCollective, rank, k.step, names.id(t.names[k.name]),
                      k.arrival_ns, k.completion_ns);
      e.seq = k.ordinal;
      if (k.numel <= 0 || __builtin_mul_overflow(k.numel, std::max(k.elem_bytes, 1), &e.bytes))
        e.bytes = 0;
      c.events.push_back(e);
      ++s.collectives;
    }
    // Kernels under their launching region (runtime call -> correlation id -> kernel).
    std::map<std::int64_t, std::int64_t> launch_at;
    for (const TraceRecord& x : t.records) {
      if (x.kind == RecordKind::kRuntime && x.correlation >= 0 && !x.on_device &&
          x.thread == steps[r].main_thread)
        launch_at[x.correlation] = x.begin_ns;
    }
    std::map<std::pair<int, std::uint16_t>, int> occurrence;
    int outside = 0;
    for (const TraceRecord& x : t.records) {
      if (!x.on_device) continue;
      const KernelClass kind = t.kernel_classes.of(t.names, x.name).kind;
      if (x.kind == RecordKind::kOther) {  // copies, memsets, GPU annotations: counted only
        if (kind == KernelClass::kMemcpy || kind == KernelClass::kMemset)
          ++class_counts[static_cast<std::size_t>(kind)];
        continue;
      }
      if (x.kind != RecordKind::kKernel && x.kind != RecordKind::kCollectiveWork) continue;
      ++s.kernels;
      ++class_counts[static_cast<std::size_t>(kind)];
      auto launch = launch_at.find(x.correlation);
      const std::int64_t when = launch != launch_at.end() ? launch->second : x.begin_ns;
      const int step = step_at(steps[r], when);
      if (step < 0) {
        ++outside;
        continue;
      }
      // A collective's kernel is its device-side arrival (the call is the host-side one): it
      // keeps its own name; other kernels are named by the region that launched them.
      const Phase* region = launch != launch_at.end() && x.kind == RecordKind::kKernel
                                ? phase_at(phases, when)
                                : nullptr;
      stepclock::EventRecord e = timed_event(
          stepclock::EventKind::kCompute, rank, step,
          names.id(region ? t.names[region->name] : t.names[x.name]), x.begin_ns, x.end_ns);
      e.microbatch = std::min(kDeviceOccurrenceBase + occurrence[{step, e.name}]++, kMaxOccurrence);
      e.device = x.device;
      e.stream = static_cast<std::int16_t>(x.thread);
      c.events.push_back(e);
    }
    if (outside > 0) {
      s.warnings.push_back(t.file + ": " + std::to_string(outside) +
                           " kernel(s) outside every step are not kept");
    }
    stepclock::ClockModel m;
    m.rank = rank;
    m.host = t.host;
    m.ref_ns = clocks[r].ref_ns;
    m.offset_ns = clocks[r].offset_ns;
    m.uncertainty_ns = clocks[r].uncertainty_ns;
    m.exchanges = clocks[r].constraints;
    c.clocks.push_back(m);
    if (r > 0 && clocks[r].constraints == 0 && !same_clock[r]) {
      s.warnings.push_back(t.file +
                           ": no collective shared with every rank: its clock is taken "
                           "as rank 0's, with unknown uncertainty");
    }
    if (clocks[r].contradicted) {
      s.warnings.push_back(t.file +
                           ": the collectives' order contradicts every constant clock "
                           "offset (clock drift?): the median offset is kept");
    }
    for (const std::string& w : t.warnings) s.warnings.push_back(w);
    c.provenance.push_back({rank, "trace_file", t.file});
    c.provenance.push_back({rank, "trace_rank", std::to_string(t.rank)});
    c.provenance.push_back({rank, "trace_rank_source", t.rank_source});
    c.provenance.push_back({rank, "trace_events", std::to_string(t.events_read)});
    const GemmTotals g = gemm_totals(t, steps[r], warmup_until);
    gemm.kernels += g.kernels;
    gemm.ns += g.ns;
    gemm.without_shapes += g.without_shapes;
    gemm.shaped_ns += g.shaped_ns;
    gemm.flops += g.flops;
    // Memory stays O(kept events): a rank's records go once its events are built.
    t.records = {};
  }
  for (std::size_t k = 0; k < class_counts.size(); ++k) {
    if (class_counts[k] > 0)
      s.kernel_classes[kernel_class_name(static_cast<KernelClass>(k))] = class_counts[k];
  }
  std::stable_sort(c.events.begin(), c.events.end(),
                   [](const stepclock::EventRecord& a, const stepclock::EventRecord& b) {
                     if (a.step != b.step) return a.step < b.step;
                     if (a.rank != b.rank) return a.rank < b.rank;
                     return a.begin_ns < b.begin_ns;
                   });
  s.events = static_cast<std::int64_t>(c.events.size());

  int steady = 0;
  for (int x : common) steady += x >= warmup_until ? 1 : 0;
  if (steady == 0) {
    throw UsageError("--warmup " + std::to_string(o.warmup_steps) + " leaves none of the " +
                     std::to_string(common.size()) + " recorded step(s) as a measured step");
  }
  std::string backend = traces[0].backend;
  if (backend.empty()) {
    // Not in the file (legacy, nsys): the collectives' own names tell it.
    for (std::size_t n = 0; n < traces[0].names.size() && backend.empty(); ++n) {
      const std::string& name = traces[0].names[static_cast<std::uint32_t>(n)];
      if (name.rfind("gloo:", 0) == 0) backend = "gloo";
      if (name.rfind("nccl", 0) == 0) backend = "nccl";
      if (name.rfind("MPI_", 0) == 0) backend = "mpi";
    }
  }
  if (backend.empty()) backend = "unknown";
  s.backend = backend;
  namespace meta = runfile::meta;
  c.meta = {{meta::kSource, "culprit import"},
            {meta::kTraceFormat, s.format},
            {meta::kBackend, backend},
            {meta::kRanks, std::to_string(ranks)},
            {meta::kWorldSize, std::to_string(s.world_size)},
            {meta::kWarmupSteps, std::to_string(warmup_until)},
            {meta::kSteps, std::to_string(steady)},
            {meta::kPartial, s.partial ? "1" : "0"},
            {meta::kIncompleteCollectives, incomplete},
            {meta::kModelFlopsPerStep, "0"},
            {meta::kParameterBytes, "0"},
            // Device events are the compute events numbered from here in `microbatch`.
            {meta::kDeviceMicrobatchBase, std::to_string(kDeviceOccurrenceBase)},
            // Measured steps' GEMM kernels over all ranks, FLOPs from recorded shapes.
            {meta::kGemmKernels, std::to_string(gemm.kernels)},
            {meta::kGemmKernelNs, number_text(gemm.ns)},
            {meta::kGemmKernelsWithoutShapes, std::to_string(gemm.without_shapes)},
            {meta::kGemmShapedNs, number_text(gemm.shaped_ns)},
            {meta::kGemmFlops, number_text(gemm.flops)}};
  // A rule said of every rank of one file (no step marker, ...) is said once.
  std::set<std::string> said;
  std::erase_if(s.warnings, [&](const std::string& w) { return !said.insert(w).second; });
  c.provenance.push_back({-1, "import_warnings", std::to_string(s.warnings.size())});
  c.provenance.push_back({-1, "rank_rule", s.rank_rule});
  std::string files = "[";
  for (std::size_t r = 0; r < s.files.size(); ++r)
    files += (r ? "," : "") + json_string(s.files[r]);
  files += "]";
  c.config_json =
      "{\"experiment\":" + json_string(o.experiment) + ",\"config_label\":" + json_string(o.label) +
      ",\"repetition\":0,\"seed\":0,\"backend\":" + json_string(backend) +
      ",\"ranks\":" + std::to_string(ranks) + ",\"warmup_steps\":" + std::to_string(warmup_until) +
      ",\"steps\":" + std::to_string(steady) +
      ",\"model\":{},\"inject\":{},\"import\":{\"format\":" + json_string(s.format) +
      ",\"partial\":" + (s.partial ? "true" : "false") +
      ",\"world_size\":" + std::to_string(s.world_size) + ",\"files\":" + files + "}}";
  return out;
}

}  // namespace culprit::importers
