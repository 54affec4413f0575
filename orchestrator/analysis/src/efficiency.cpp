#include "culprit/analysis/efficiency.hpp"
#include "runfile/meta_keys.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <string>

#include <fmt/format.h>

#include "culprit/analysis/robust.hpp"
#include "culprit/common/kernels.hpp"

namespace culprit::analysis {
namespace {

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

// GEMM FLOP/s of an imported run: the FLOPs of the GEMM operators whose shapes were recorded
// over the time of the GEMM kernels they launched (the importer's meta, docs/importers.md).
Ratio imported_gemm_rate(const storage::RunData& run) {
  Ratio r =
      ratio("GEMM achieved", meta_number(run, runfile::meta::kGemmFlops),
            "GEMM FLOP (from Input Dims)", meta_number(run, runfile::meta::kGemmShapedNs) * 1e-9,
            "s in GEMM kernels with shapes", "FLOP/s");
  const double kernels = meta_number(run, runfile::meta::kGemmKernels);
  if (kernels <= 0) {
    r.missing = "the run has no GEMM kernels (none the kernel table calls GEMM)";
  } else if (meta_number(run, runfile::meta::kGemmShapedNs) <= 0 ||
             meta_number(run, runfile::meta::kGemmFlops) <= 0) {
    r.missing = fmt::format(
        "none of the {:.0f} GEMM kernels was launched by an operator with recorded shapes "
        "(Input Dims: profile with record_shapes=True; Nsight Systems exports hold none)",
        kernels);
  }
  return r;
}

struct OperationBytes {
  double bytes = 0;
  double transfer_ns = 0;
  int zero_byte = 0;
};

// algbw = bytes / transfer time and busbw = algbw x the operation's nccl-tests bus factor, for
// every operation and over all of them (bus bytes summed per operation). Collectives without a
// message size (0 bytes) take no part: a bandwidth is never computed from zero bytes.
void bandwidth(const storage::RunData& run, const std::vector<CollectiveTiming>& collectives,
               Efficiency& eff) {
  const double world = meta_number(run, runfile::meta::kWorldSize);
  const int n = world > 0 ? static_cast<int>(world) : run.ranks;
  std::map<CollectiveOp, OperationBytes> by_op;
  for (const CollectiveTiming& c : collectives) {
    if (c.step < run.warmup_steps) continue;
    OperationBytes& o = by_op[collective_op_from_name(run.names[c.name])];
    if (c.bytes <= 0) {
      ++o.zero_byte;
      continue;
    }
    o.bytes += static_cast<double>(c.bytes);
    o.transfer_ns += c.transfer_ns;
  }
  double bytes = 0, bus_bytes = 0, transfer_ns = 0, bus_ns = 0;
  int zero_byte = 0;
  for (const auto& [op, o] : by_op) {
    zero_byte += o.zero_byte;
    const double factor = bus_factor(op, n);
    const std::string what = op == CollectiveOp::kNone ? "unknown" : collective_op_name(op);
    Ratio alg =
        ratio(what + " algbw", o.bytes, "bytes", o.transfer_ns * 1e-9, "s of transfer", "B/s");
    Ratio bus =
        ratio(what + " busbw", o.bytes * factor, fmt::format("bytes x {:.4g} (n = {})", factor, n),
              o.transfer_ns * 1e-9, "s of transfer", "B/s");
    if (o.bytes <= 0) {
      alg.missing = bus.missing =
          fmt::format("its {} collective(s) record no message size (0 bytes)", o.zero_byte);
    } else if (factor <= 0) {
      bus.missing =
          n <= 1 ? "one rank: no bus traffic" : "no nccl-tests bus factor for this operation";
    }
    eff.bandwidth_by_operation.push_back(alg);
    eff.bandwidth_by_operation.push_back(bus);
    bytes += o.bytes;
    transfer_ns += o.transfer_ns;
    if (factor > 0 && o.bytes > 0) {
      bus_bytes += o.bytes * factor;
      bus_ns += o.transfer_ns;
    }
  }
  eff.algbw = ratio("algbw", bytes, "bytes", transfer_ns * 1e-9, "s of transfer", "B/s");
  eff.busbw = ratio("busbw", bus_bytes, "bytes x each operation's bus factor", bus_ns * 1e-9,
                    "s of transfer", "B/s");
  if (collectives.empty()) {
    eff.algbw.missing = eff.busbw.missing = "the run has no collectives";
  } else if (bytes <= 0) {
    eff.algbw.missing = eff.busbw.missing =
        fmt::format("none of the {} collective(s) records a message size (0 bytes)", zero_byte);
  } else if (bus_bytes <= 0) {
    eff.busbw.missing =
        n <= 1 ? "one rank: no bus traffic" : "no collective with a nccl-tests bus factor";
  }
}

// The busy time of rank r within [first, last] as disjoint spans, by begin: the union of its
// device kernels over all streams (imported compute events numbered from the meta
// device_microbatch_base in `microbatch`) when it has any, else of its phases. A union never
// counts overlapping streams or nested phases twice, so a share never exceeds 100 %.
std::vector<std::pair<double, double>> busy_spans(const Timeline& t, std::size_t r,
                                                  double device_base, double first, double last) {
  std::vector<std::pair<double, double>> device, host;
  for (EventIndex e : t.by_begin[r]) {
    const auto u = static_cast<std::size_t>(e);
    const storage::Event& x = t.event(e);
    if (!is_phase(x)) continue;
    const double b = std::max(t.begin_ns[u], first);
    const double end = std::min(t.end_ns[u], last);
    if (end <= b) continue;
    const bool on_device = device_base > 0 && x.microbatch >= device_base;
    (on_device ? device : host).emplace_back(b, end);
  }
  std::vector<std::pair<double, double>>& spans = device.empty() ? host : device;
  std::sort(spans.begin(), spans.end());
  std::vector<std::pair<double, double>> merged;
  for (const auto& s : spans) {
    if (!merged.empty() && s.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, s.second);
    } else {
      merged.push_back(s);
    }
  }
  return merged;
}

// A simulated or instrumented run's GEMM rate: the model's GEMM FLOP over the time its gemm*
// events took in the steady steps (an imported run's comes from its kernels' meta instead).
Ratio recorded_gemm_rate(const Timeline& timeline, double flops_per_rank, int steady_steps) {
  const storage::RunData& run = *timeline.run;
  const double ranks = run.ranks;
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
  Ratio rate = ratio("GEMM achieved", flops_per_rank * steady_steps * ranks, "GEMM FLOP",
                     gemm_ns * 1e-9, "s in GEMMs", "FLOP/s");
  if (flops_per_rank <= 0) rate.missing = "the run has no meta model_flops_per_step";
  if (gemm_events == 0) rate.missing = "the run has no GEMM events";
  return rate;
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

  eff.gemm_rate = run.meta.count(runfile::meta::kGemmKernels)
                      ? imported_gemm_rate(run)
                      : recorded_gemm_rate(timeline, flops_per_rank, steady_steps);
  bandwidth(run, collectives, eff);
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
  const double device_base = meta_number(*timeline.run, runfile::meta::kDeviceMicrobatchBase);
  double busy = 0;
  long hits = 0;
  const double period_ns = period_s * 1e9;
  const auto samples = static_cast<long>(std::floor((last - first) / period_ns));
  a.samples = static_cast<int>(samples);
  for (std::size_t r = 0; r < timeline.by_begin.size(); ++r) {
    const std::vector<std::pair<double, double>> spans =
        busy_spans(timeline, r, device_base, first, last);
    for (const auto& [b, e] : spans) busy += e - b;
    // Sample instants sit in the middle of each period.
    for (long k = 0; k < samples; ++k) {
      const double at = first + (static_cast<double>(k) + 0.5) * period_ns;
      auto it = std::upper_bound(spans.begin(), spans.end(), at,
                                 [](double v, const auto& p) { return v < p.first; });
      if (it != spans.begin() && std::prev(it)->second > at) ++hits;
    }
  }
  const double ranks = static_cast<double>(timeline.by_begin.size());
  a.busy_share = busy / ((last - first) * ranks);
  if (samples > 0)
    a.sampled_share = static_cast<double>(hits) / (static_cast<double>(samples) * ranks);
  return a;
}

}  // namespace culprit::analysis
