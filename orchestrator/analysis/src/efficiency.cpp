#include "culprit/analysis/efficiency.hpp"
#include "runfile/meta_keys.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <string>

#include "robust.hpp"

namespace culprit::analysis {
namespace {

bool is_phase(const storage::Event& e) {
  return e.kind == storage::EventKind::kCompute || e.kind == storage::EventKind::kHost;
}

bool steady(const Timeline& t, const storage::Event& e) {
  return e.step >= t.run->warmup_steps;
}

Ratio ratio(std::string name, double numerator, std::string numerator_unit, double denominator,
            std::string denominator_unit, std::string unit) {
  Ratio r;
  r.name = std::move(name);
  r.numerator = numerator;
  r.numerator_unit = std::move(numerator_unit);
  r.denominator = denominator;
  r.denominator_unit = std::move(denominator_unit);
  r.unit = std::move(unit);
  if (denominator > 0 && std::isfinite(numerator)) {
    r.value = numerator / denominator;
  } else {
    r.missing = "denominator is zero";
  }
  return r;
}

double meta_number(const storage::RunData& run, const char* key) {
  auto it = run.meta.find(key);
  if (it == run.meta.end()) return 0.0;
  try {
    return std::stod(it->second);
  } catch (const std::exception&) {
    return 0.0;
  }
}

// Length of the union of intervals.
double union_length(std::vector<std::pair<double, double>>& intervals) {
  sort_almost_sorted(intervals.begin(), intervals.end(), std::less<>());
  double total = 0, lo = 0, hi = -1e300;
  for (const auto& [b, e] : intervals) {
    if (b > hi) {
      if (hi > lo) total += hi - lo;
      lo = b;
      hi = e;
    } else {
      hi = std::max(hi, e);
    }
  }
  if (hi > lo) total += hi - lo;
  return total;
}

Ratio visual_overlap(const Timeline& t) {
  double comm = 0, overlapped = 0;
  std::vector<std::pair<double, double>> comm_intervals, compute_intervals, both;
  for (std::size_t r = 0; r < t.by_begin.size(); ++r) {
    comm_intervals.clear();
    compute_intervals.clear();
    for (EventIndex e : t.by_begin[r]) {
      const storage::Event& x = t.event(e);
      if (!steady(t, x)) continue;
      const auto u = static_cast<std::size_t>(e);
      if (x.kind == storage::EventKind::kCollective)
        comm_intervals.emplace_back(t.begin_ns[u], t.end_ns[u]);
      if (is_phase(x)) compute_intervals.emplace_back(t.begin_ns[u], t.end_ns[u]);
    }
    const double c = union_length(comm_intervals);
    const double p = union_length(compute_intervals);
    both.clear();
    std::merge(comm_intervals.begin(), comm_intervals.end(), compute_intervals.begin(),
               compute_intervals.end(), std::back_inserter(both));
    // |A ∩ B| = |A| + |B| - |A ∪ B|
    overlapped += c + p - union_length(both);
    comm += c;
  }
  return ratio("visual overlap", overlapped / 1e6, "ms comm ∩ compute", comm / 1e6, "ms comm", "");
}

}  // namespace

Efficiency efficiency(const Timeline& timeline, const std::vector<CollectiveTiming>& collectives,
                      const std::vector<StepDecomposition>& steps, double peak_flops_per_device) {
  const storage::RunData& run = *timeline.run;
  const double ranks = run.ranks;
  Efficiency eff;
  double step_time_ns = 0, exposed_ns = 0;
  int steady_steps = 0;
  std::vector<double> steady_ms;
  for (const StepDecomposition& d : steps) {
    if (d.warmup) continue;
    ++steady_steps;
    step_time_ns += d.time_ns;
    steady_ms.push_back(d.time_ns / 1e6);
    for (const Component& c : d.components) {
      if (c.category == Category::kExposedComm) exposed_ns += c.ns;
    }
  }
  const double median_ms = median_inplace(steady_ms);
  const double flops_per_rank = meta_number(run, runfile::meta::kModelFlopsPerStep);

  eff.mfu =
      ratio("MFU", flops_per_rank * ranks, "model FLOP per step",
            median_ms * 1e-3 * ranks * peak_flops_per_device, "FLOP at peak in a median step", "");
  if (peak_flops_per_device <= 0)
    eff.mfu.missing = "peak FLOP/s per device unknown (model.peak_flops)";
  if (flops_per_rank <= 0) eff.mfu.missing = "the run has no meta model_flops_per_step";

  double gemm_ns = 0, gemm_events = 0;
  std::vector<bool> is_gemm(run.names.size());
  for (std::size_t n = 0; n < run.names.size(); ++n)
    is_gemm[n] = run.names[n].rfind("gemm", 0) == 0;
  for (const storage::Event& e : run.events) {
    if (e.kind != storage::EventKind::kCompute || !steady(timeline, e) || !is_gemm[e.name])
      continue;
    gemm_ns += static_cast<double>(e.end_ns - e.begin_ns);
    ++gemm_events;
  }
  // model_flops_per_step counts the GEMMs of one rank's step.
  eff.gemm_rate = ratio("GEMM achieved", flops_per_rank * steady_steps * ranks, "GEMM FLOP",
                        gemm_ns * 1e-9, "s in GEMMs", "FLOP/s");
  if (flops_per_rank <= 0) eff.gemm_rate.missing = "the run has no meta model_flops_per_step";
  if (gemm_events == 0) eff.gemm_rate.missing = "the run has no GEMM events";

  double bytes = 0, transfer_ns = 0;
  for (const CollectiveTiming& c : collectives) {
    if (c.step < run.warmup_steps) continue;
    bytes += static_cast<double>(c.bytes);
    transfer_ns += c.transfer_ns;
  }
  eff.algbw = ratio("all-reduce algbw", bytes, "bytes", transfer_ns * 1e-9, "s of transfer", "B/s");
  const double bus_factor = ranks > 1 ? 2.0 * (ranks - 1) / ranks : 0.0;
  eff.busbw = ratio("all-reduce busbw", bytes * bus_factor, "bytes x 2(n-1)/n", transfer_ns * 1e-9,
                    "s of transfer", "B/s");
  if (collectives.empty()) {
    eff.algbw.missing = eff.busbw.missing = "the run has no collectives";
  }
  eff.exposed_comm =
      ratio("exposed communication", exposed_ns / 1e6, "ms exposed on the critical path",
            step_time_ns / 1e6, "ms of step time", "");
  eff.visual_overlap = visual_overlap(timeline);
  return eff;
}

SampledActivity sampled_activity(const Timeline& timeline, double period_s) {
  SampledActivity a;
  a.period_s = period_s;
  double first = 0, last = 0;
  bool any = false;
  for (const StepTime& s : timeline.steps) {
    if (s.warmup) continue;
    if (!any) first = s.boundary_ns - s.time_ms * 1e6;
    last = s.boundary_ns;
    any = true;
  }
  if (!any || last <= first) return a;
  a.span_s = (last - first) * 1e-9;
  double busy = 0;
  long hits = 0;
  const double period_ns = period_s * 1e9;
  const auto samples = static_cast<long>(std::floor((last - first) / period_ns));
  a.samples = static_cast<int>(samples);
  for (std::size_t r = 0; r < timeline.by_begin.size(); ++r) {
    std::vector<std::pair<double, double>> phases;
    for (EventIndex e : timeline.by_begin[r]) {
      const auto u = static_cast<std::size_t>(e);
      if (!is_phase(timeline.event(e))) continue;
      const double b = std::max(timeline.begin_ns[u], first);
      const double x = std::min(timeline.end_ns[u], last);
      if (x > b) {
        phases.emplace_back(b, x);
        busy += x - b;
      }
    }
    // Sample instants sit in the middle of each period.
    for (long k = 0; k < samples; ++k) {
      const double at = first + (static_cast<double>(k) + 0.5) * period_ns;
      auto it = std::upper_bound(phases.begin(), phases.end(), at,
                                 [](double v, const auto& p) { return v < p.first; });
      if (it != phases.begin() && std::prev(it)->second > at) ++hits;
    }
  }
  const double ranks = static_cast<double>(timeline.by_begin.size());
  a.busy_share = busy / ((last - first) * ranks);
  if (samples > 0)
    a.sampled_share = static_cast<double>(hits) / (static_cast<double>(samples) * ranks);
  return a;
}

}  // namespace culprit::analysis
