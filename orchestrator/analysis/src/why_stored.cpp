// The why block of `culprit explain`: counters attached to the representative runs (the
// candidate's blamed rank against the baseline run, else against its peers' median launch),
// and the next ncu command for the blamed phase on the blamed rank.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "culprit/analysis/attach.hpp"
#include "culprit/analysis/explain.hpp"
#include "culprit/analysis/stored_runs.hpp"
#include "culprit/analysis/why_capture.hpp"
#include "culprit/storage/evidence.hpp"
#include "culprit/storage/records.hpp"
#include "culprit/storage/run_data.hpp"
#include "runfile/meta_keys.hpp"
#include "runfile/phase_range.hpp"
#include "why_stored_parts.hpp"

namespace culprit::analysis {
namespace {

using Rows = std::vector<storage::KernelCounterRow>;

// The rows of one rank (rank < 0: every rank) as kernels, only those of `phase` when it has any.
std::vector<KernelCounters> kernels_of(const Rows& rows, int rank, const std::string& phase) {
  const bool phased = std::any_of(rows.begin(), rows.end(), [&](const auto& r) {
    return (rank < 0 || r.rank == rank) && !phase.empty() && r.phase == phase;
  });
  std::map<std::tuple<std::string, std::string, std::int64_t>, importers::ncu::Launch> launches;
  for (const storage::KernelCounterRow& r : rows) {
    if ((rank >= 0 && r.rank != rank) || (phased && r.phase != phase)) continue;
    importers::ncu::Launch& l = launches[{r.source, r.kernel, r.launch_id}];
    l.id = r.launch_id;
    l.kernel = r.kernel;
    importers::ncu::Metric& m = l.metrics.emplace_back();
    m.section = r.section;
    m.name = r.metric;
    m.unit = r.unit;
    m.value = r.value.value_or(std::numeric_limits<double>::quiet_NaN());
    m.text = r.text;
  }
  std::vector<KernelCounters> out;
  for (const auto& entry : launches) {
    const std::string& source = std::get<0>(entry.first);
    const auto& l = entry.second;  // a plain reference: clang 14 cannot capture a binding
    auto it = std::find_if(out.begin(), out.end(), [&](const KernelCounters& k) {
      return k.file == source && k.kernel == l.kernel;
    });
    if (it == out.end()) it = out.insert(out.end(), KernelCounters{source, l.kernel, {}, {}});
    it->launch_ids.push_back(l.id);
    it->launches.push_back(importers::ncu::kernel_figures(l));
  }
  return out;
}

std::vector<int> ranks_of(const Rows& rows) {
  std::vector<int> out;
  for (const auto& r : rows) {
    if (std::find(out.begin(), out.end(), r.rank) == out.end()) out.push_back(r.rank);
  }
  return out;
}

double total_duration(const std::vector<KernelCounters>& ks) {
  double sum = 0.0;
  for (const auto& k : ks) {
    for (const auto& f : k.launches) sum += f.duration_ns ? f.duration_ns->value : 0.0;
  }
  return sum;
}

// The peer whose total kernel duration is the median of the peers'.
int median_peer(const Rows& rows, int rank, const std::string& phase) {
  std::vector<std::pair<double, int>> peers;
  for (const int r : ranks_of(rows)) {
    if (r != rank) peers.emplace_back(total_duration(kernels_of(rows, r, phase)), r);
  }
  if (peers.empty()) return -1;
  std::sort(peers.begin(), peers.end());
  return peers[(peers.size() - 1) / 2].second;
}

struct PhaseCount {
  int before = -1;  // instances of the phase on the rank before the blamed one (step order)
  int blamed = -1;  // instances in the blamed step that match its layer and microbatch;
                    // -1: not counted (a large run, see why_of)
  std::optional<storage::Event> first;  // the first of those, when counted
};

// Events are in (step, rank, begin) order: the instances before the first blamed one are the
// launches to skip, the matching ones in the blamed step the launches to capture.
PhaseCount count_phase(const storage::RunData& run, const RunCulprit& c) {
  PhaseCount n{0, 0, std::nullopt};
  const int name = run.name_index(c.phase);
  for (const storage::Event& e : run.events) {
    if (e.rank != c.rank || static_cast<int>(e.name) != name || e.step > c.step) continue;
    const bool match = e.step == c.step && (c.layer < 0 || e.layer == c.layer) &&
                       (c.microbatch < 0 || e.microbatch == c.microbatch);
    if (match) {
      if (n.blamed++ == 0) n.first = e;
    } else if (n.blamed == 0) {
      ++n.before;
    }
  }
  return n;
}

// `nvtx_ranges`: the run's phases ran inside NVTX ranges (run meta phase_ranges), so the capture
// names the blamed step's first matching instance by its range.
void fill_capture(WhyBlock& b, const RunCulprit& c, const PhaseCount& n, bool nvtx_ranges) {
  CaptureTarget t;
  t.kernel = b.verdict ? b.verdict->candidate.kernel : std::string();
  t.phase = c.phase;
  t.rank = c.rank;
  if (nvtx_ranges && n.first) {
    const storage::Event& e = *n.first;
    t.nvtx_range = runfile::phase_range_name(c.phase, e.step, e.microbatch, e.layer, e.seq);
  }
  t.launch_skip = n.before >= 0 ? std::to_string(n.before)
                                : fmt::format("<instances of {} on rank {} before step {}>",
                                              c.phase, c.rank, c.step);
  t.launch_count = n.blamed >= 0 ? std::to_string(std::max(1, n.blamed))
                                 : fmt::format("<its instances in step {}>", c.step);
  NextCapture capture = next_capture(t);
  b.next_capture = std::move(capture.ncu);
  b.telemetry_capture = std::move(capture.telemetry);
}

// Counting the phase's launches reads the run's events again: done for runs of at most this
// many ranks, or when evidence is attached (a 16,384-rank explain would load its run twice).
constexpr int kCountedRanks = 1024;

void apply_shape(WhyOptions& o, const std::optional<why_detail::PhaseShape>& shape) {
  if (!shape) return;
  o.flops = shape->flops;
  o.flops_source = shape->flops_source;
  o.ideal_bytes = shape->ideal_bytes;
  o.ideal_bytes_source = shape->bytes_source;
}

// The counters' side to compare with: the baseline run's (the blamed rank's, else its first
// rank's), else the candidate's peer of median duration.
std::vector<KernelCounters> baseline_side(storage::Db& store, const Explanation& e,
                                          const Rows& rows, WhyBlock& b) {
  const RunCulprit& c = e.culprit;
  Rows base =
      e.baseline_runs.empty() ? Rows{} : storage::load_kernel_counters(store, e.baseline_runs[0]);
  int base_rank = c.rank;
  if (!base.empty()) {
    if (kernels_of(base, base_rank, c.phase).empty()) base_rank = ranks_of(base).front();
    b.against = fmt::format("baseline run {} rank {}", e.baseline_runs[0], base_rank);
  } else if ((base_rank = median_peer(rows, c.rank, c.phase)) >= 0) {
    base = rows;
    b.against =
        fmt::format("the peers' median: rank {} of run {}", base_rank, e.candidate_runs.front());
  }
  return kernels_of(base, base_rank, c.phase);
}

WhyBlock why_of(storage::Db& store, const Explanation& e, int ranks,
                const why_detail::StoredTelemetry& telemetry) {
  WhyBlock b;
  const RunCulprit& c = e.culprit;
  if (!c.found || e.candidate_runs.empty()) return b;
  const std::int64_t run = e.candidate_runs.front();
  if (configured_backend(store, run) == "cpu") {
    b.not_applicable = fmt::format(
        "rank {} ran {} on the CPU (the configuration's backend is cpu), so GPU kernel counters "
        "and telemetry do not apply; `perf stat -e task-clock,cycles,instructions,"
        "context-switches,cpu-migrations -p <pid of rank {}>` while it runs tells compute "
        "(cycles, instructions) from waiting for a core (context switches, migrations)",
        c.rank, c.phase, c.rank);
    return b;
  }
  const Rows rows = storage::load_kernel_counters(store, run);
  WhyOptions o;
  o.peaks.flops_per_s = configured_peak_flops(store, run);
  o.peaks.source = "the configuration's model.peak_flops";
  o.blamed_excess_ms = c.excess_ms;
  o.telemetry = telemetry.clock;
  o.telemetry_note = telemetry.note;
  // The configuration's shape is the phase's: it is taken only for counters attached to that
  // phase (matched by name, or --phase), never for a kernel that merely stands beside it.
  const bool of_phase = std::any_of(rows.begin(), rows.end(), [&](const auto& r) {
    return r.rank == c.rank && r.phase == c.phase;
  });
  // explain has no --flops: a count comes from the SASS counters, or from the phase's shape.
  o.no_flops_hint = "collect sm__sass_thread_inst_executed_op_*";
  if (of_phase) {
    apply_shape(o, why_detail::phase_shape(store, e));
  } else {
    o.no_flops_note = fmt::format(
        "n/a: no FLOP count (the kernel is not attached to phase {}: import it with --phase {} "
        "to take the phase's shape from the configuration)",
        c.phase, c.phase);
    o.no_flops_hint += fmt::format(", or import the counters with --phase {}", c.phase);
  }
  if (telemetry.clock) b.clock_throttling = clock_throttling_of(*telemetry.clock);
  b.slow_steps = telemetry.slow_steps;
  PhaseCount n;
  if (ranks <= kCountedRanks || !rows.empty() || telemetry.candidate) {
    n = count_phase(storage::load_run(store, run), c);
  }
  o.launches_per_step = std::max(1, n.blamed);
  const auto candidate = kernels_of(rows, c.rank, c.phase);
  if (!candidate.empty()) {
    const auto baseline = baseline_side(store, e, rows, b);
    b.verdict = why_verdict(baseline.empty() ? nullptr : &baseline, candidate, o);
  }
  fill_capture(b, c, n,
               storage::run_meta_value(store, run, runfile::meta::kPhaseRanges) ==
                   runfile::kPhaseRangesNvtx);
  return b;
}

}  // namespace

void add_why(storage::Db& store, StoredExplanations& result) {
  for (std::size_t i = 0; i < result.explanations.size(); ++i) {
    Explanation& e = result.explanations[i];
    const bool attributed = i < result.candidate_attributions.size();
    const int ranks = attributed ? result.candidate_attributions[i].ranks : kCountedRanks + 1;
    const why_detail::StoredTelemetry t = why_detail::stored_telemetry(
        store, e, attributed ? &result.candidate_attributions[i] : nullptr);
    e.baseline_telemetry = t.baseline;
    e.candidate_telemetry = t.candidate;
    if (e.culprit.found) e.why = why_of(store, e, ranks, t);
  }
}

}  // namespace culprit::analysis
