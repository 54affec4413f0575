// One side of the why block: the kernel's counters per launch, against the peaks and the shape,
// each figure with its numerator and denominator.
#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "why_numbers.hpp"

namespace culprit::analysis::why_detail {
namespace {

using importers::ncu::KernelFigures;
using importers::ncu::MaybeFigure;

constexpr const char* kNoBytesNote =
    "n/a: no DRAM byte count (collect dram__bytes_read.sum and dram__bytes_write.sum)";
constexpr const char* kNoDurationNote = "n/a: no duration (collect gpu__time_duration.sum)";

// The mean over the launches that have the figure, and the metric it came from.
std::pair<Maybe, std::string> mean(const KernelCounters& k, MaybeFigure KernelFigures::*field) {
  double sum = 0.0;
  int count = 0;
  std::string source;
  for (const KernelFigures& f : k.launches) {
    if (!(f.*field)) continue;
    sum += (f.*field)->value;
    source = (f.*field)->source;
    ++count;
  }
  if (count == 0) return {std::nullopt, ""};
  return {sum / count, source};
}

Maybe pct(const Maybe& a, const Maybe& b) {
  const Maybe r = ratio(a, b);
  return r ? Maybe(*r * 100.0) : std::nullopt;
}

Maybe positive(double v) {
  return v > 0.0 ? Maybe(v) : std::nullopt;
}

void apply_peaks(SideNumbers& n, const WhyOptions& o) {
  const Maybe seconds = n.duration_ns ? Maybe(*n.duration_ns * 1e-9) : std::nullopt;
  n.flop_rate = ratio(n.flops, seconds);
  n.bandwidth = ratio(n.bytes, seconds);
  n.flop_pct = pct(n.flop_rate, positive(o.peaks.flops_per_s));
  n.bandwidth_pct = pct(n.bandwidth, positive(o.peaks.bytes_per_s));
  n.intensity = ratio(n.flops, n.bytes);
}

}  // namespace

SideNumbers side_numbers(const KernelCounters& k, const WhyOptions& o) {
  SideNumbers n;
  n.launches = static_cast<double>(k.launches.size());
  std::tie(n.duration_ns, n.duration_source) = mean(k, &KernelFigures::duration_ns);
  std::tie(n.bytes, n.bytes_source) = mean(k, &KernelFigures::dram_bytes);
  std::tie(n.flops, n.flops_source) = mean(k, &KernelFigures::flops);
  if (!n.flops && o.flops) {
    n.flops = *o.flops;
    n.flops_source = o.flops_source;
  }
  if (!n.flops) n.flops_note = o.no_flops_note;
  if (!n.bytes) n.bytes_note = kNoBytesNote;
  if (!n.duration_ns) n.duration_note = kNoDurationNote;
  // A count the export lacks still names what the figure is made of ("FLOPs / duration", not
  // " / duration"); the figure's note says why it is n/a.
  if (n.duration_source.empty()) n.duration_source = "duration";
  if (n.bytes_source.empty()) n.bytes_source = "DRAM bytes";
  if (n.flops_source.empty()) n.flops_source = "FLOPs";
  n.sm_active_cycles = mean(k, &KernelFigures::sm_active_cycles).first;
  n.elapsed_cycles = mean(k, &KernelFigures::elapsed_cycles).first;
  n.sm_active_pct = pct(n.sm_active_cycles, n.elapsed_cycles);
  n.occupancy_pct = mean(k, &KernelFigures::achieved_occupancy_pct).first;
  n.tensor_pct = mean(k, &KernelFigures::tensor_pipe_pct).first;
  n.clock_hz = mean(k, &KernelFigures::sm_frequency_hz).first;
  n.sm_throughput_pct = mean(k, &KernelFigures::sm_throughput_pct).first;
  n.memory_pct = mean(k, &KernelFigures::memory_throughput_pct).first;
  if (!n.memory_pct) n.memory_pct = mean(k, &KernelFigures::dram_throughput_pct).first;
  n.waves = mean(k, &KernelFigures::waves_per_sm).first;
  apply_peaks(n, o);
  return n;
}

namespace {

WhyFigure fig(std::string metric, Maybe value, Maybe num, Maybe den, std::string unit,
              std::string source, std::string note = "") {
  return WhyFigure{std::move(metric), value,          num, den, std::move(unit),
                   std::move(source), std::move(note)};
}

// Why the kernel has no place on the roofline: each roof needs the kernel's own count and the
// device's peak, and the message names what is missing of both.
std::string no_roof_reason(const SideNumbers& n, const WhyOptions& o) {
  const bool flops_peak = positive(o.peaks.flops_per_s).has_value();
  const bool bytes_peak = positive(o.peaks.bytes_per_s).has_value();
  if (!flops_peak && !bytes_peak) return "n/a: no peaks (pass --peaks or --device)";
  if (!n.duration_ns) return n.duration_note;
  const char* memory = !n.bytes ? "no DRAM byte count (collect dram__bytes_*)"
                                : "no bandwidth peak (peak_bandwidth)";
  const std::string compute =
      !n.flops ? fmt::format("no FLOP count ({})", o.no_flops_hint) : "no FLOP peak (peak_flops)";
  return fmt::format("n/a: {} and {}", memory, compute);
}

std::string roof_of(const SideNumbers& n, const WhyOptions& o) {
  const Maybe ridge = ratio(positive(o.peaks.flops_per_s), positive(o.peaks.bytes_per_s));
  const bool memory_side = !n.intensity || !ridge || *n.intensity < *ridge;
  if (n.bandwidth_pct && *n.bandwidth_pct >= why_rule::kRoofPct && memory_side) {
    return "memory roof";
  }
  if (n.flop_pct && *n.flop_pct >= why_rule::kRoofPct) return "compute roof";
  if (n.bandwidth_pct || n.flop_pct) return "below the roofs";
  return no_roof_reason(n, o);
}

// "what, where the peaks came from" ("achieved FLOP/s / peak FLOP/s, peaks.csv (measured)");
// without peaks the formula alone.
std::string against_peaks(const std::string& formula, const WhyPeaks& p) {
  return p.source.empty() ? formula : formula + ", " + p.source;
}

// The first reason a figure is n/a, in the order of its operands ("" when none is missing).
std::string first_reason(std::initializer_list<std::string_view> notes) {
  for (const std::string_view note : notes) {
    if (!note.empty()) return std::string(note);
  }
  return "";
}

// Why a counter the export lacks is n/a, and what to collect (the names `explain`'s next
// capture collects); "" when it is there.
std::string counter_note(const Maybe& value, const char* metrics) {
  return value ? "" : fmt::format("n/a: not in the export (collect {})", metrics);
}

// Why a figure against a peak is n/a: the kernel's own count missing (its note), else the peak.
std::string peak_note(const std::string& count_note, double peak, const char* which) {
  if (!count_note.empty()) return count_note;
  if (peak > 0.0) return "";
  return fmt::format("n/a: no {} peak (pass --peaks or --device)", which);
}

// A sum as an operand of a quotient: "a / (b + c)", not "a / b + c".
std::string operand(const std::string& source) {
  return source.find(" + ") == std::string::npos ? source : "(" + source + ")";
}

void add_roofline(std::vector<WhyFigure>& f, const SideNumbers& n, const WhyOptions& o) {
  const WhyPeaks& p = o.peaks;
  const Maybe ridge = ratio(positive(p.flops_per_s), positive(p.bytes_per_s));
  f.push_back(fig("arithmetic_intensity", n.intensity, n.flops, n.bytes, "FLOP/byte",
                  operand(n.flops_source) + " / " + operand(n.bytes_source),
                  first_reason({n.flops_note, n.bytes_note})));
  f.push_back(fig("ridge_point", ridge, positive(p.flops_per_s), positive(p.bytes_per_s),
                  "FLOP/byte", against_peaks("peak FLOP/s / peak byte/s", p),
                  // the first of the two peaks that is missing
                  peak_note(peak_note("", p.flops_per_s, "FLOP"), p.bytes_per_s, "bandwidth")));
  if (n.intensity && ridge) {
    const double roof = std::min(p.flops_per_s, *n.intensity * p.bytes_per_s);
    f.push_back(fig("roofline_pct", pct(n.flop_rate, roof), n.flop_rate, roof, "%",
                    "achieved FLOP/s / min(peak FLOP/s, intensity x peak byte/s)",
                    n.duration_note));
  }
}

}  // namespace

WhySide make_side(const KernelCounters& k, const SideNumbers& n, const WhyOptions& o) {
  WhySide s;
  s.file = k.file;
  s.kernel = k.kernel;
  s.launch_ids = k.launch_ids;
  auto& f = s.figures;
  const Maybe seconds = n.duration_ns ? Maybe(*n.duration_ns * 1e-9) : std::nullopt;
  const Maybe total_ns = n.duration_ns ? Maybe(*n.duration_ns * n.launches) : std::nullopt;
  const std::string flops_per_s_note = first_reason({n.flops_note, n.duration_note});
  const std::string bytes_per_s_note = first_reason({n.bytes_note, n.duration_note});
  f.push_back(fig("duration", n.duration_ns, total_ns, n.launches, "ns",
                  n.duration_source + " summed / launches", n.duration_note));
  f.push_back(fig("flop_rate", n.flop_rate, n.flops, seconds, "FLOP/s",
                  operand(n.flops_source) + " / duration", flops_per_s_note));
  f.push_back(fig("flop_rate_pct_of_peak", n.flop_pct, n.flop_rate, positive(o.peaks.flops_per_s),
                  "%", against_peaks("achieved FLOP/s / peak FLOP/s", o.peaks),
                  peak_note(flops_per_s_note, o.peaks.flops_per_s, "FLOP")));
  f.push_back(
      fig("dram_bytes", n.bytes, n.bytes, Maybe(1.0), "byte", n.bytes_source, n.bytes_note));
  f.push_back(fig("dram_bytes_over_ideal", ratio(n.bytes, o.ideal_bytes), n.bytes, o.ideal_bytes,
                  "x", "DRAM bytes / " + o.ideal_bytes_source,
                  first_reason({n.bytes_note, o.ideal_bytes ? "" : "n/a: no ideal bytes"})));
  f.push_back(fig("dram_bandwidth", n.bandwidth, n.bytes, seconds, "byte/s",
                  "DRAM bytes / duration", bytes_per_s_note));
  f.push_back(fig("dram_bandwidth_pct_of_peak", n.bandwidth_pct, n.bandwidth,
                  positive(o.peaks.bytes_per_s), "%",
                  against_peaks("achieved byte/s / peak byte/s", o.peaks),
                  peak_note(bytes_per_s_note, o.peaks.bytes_per_s, "bandwidth")));
  add_roofline(f, n, o);
  f.push_back(
      fig("sm_active", n.sm_active_pct, n.sm_active_cycles, n.elapsed_cycles, "%",
          "SM Active Cycles / Elapsed Cycles",
          counter_note(n.sm_active_pct, "sm__cycles_active.avg and gpc__cycles_elapsed.max")));
  f.push_back(
      fig("achieved_occupancy", n.occupancy_pct, n.occupancy_pct, Maybe(100.0), "%",
          "achieved active warps / the SM's maximum",
          counter_note(n.occupancy_pct, "sm__warps_active.avg.pct_of_peak_sustained_active")));
  f.push_back(
      fig("tensor_pipe_active", n.tensor_pct, n.tensor_pct, Maybe(100.0), "%",
          "tensor pipe active cycles / active cycles",
          counter_note(n.tensor_pct,
                       "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active")));
  f.push_back(fig("sm_clock", n.clock_hz, n.clock_hz, Maybe(1.0), "hz", "SM Frequency",
                  counter_note(n.clock_hz, "gpc__cycles_elapsed.avg.per_second")));
  f.push_back(fig(
      "sm_throughput", n.sm_throughput_pct, n.sm_throughput_pct, Maybe(100.0), "%",
      "the busiest SM sub-unit / its peak",
      n.sm_throughput_pct
          ? "not FLOP efficiency: a saturated load/store unit reads high"
          : counter_note(n.sm_throughput_pct, "sm__throughput.avg.pct_of_peak_sustained_elapsed")));
  s.roof = roof_of(n, o);
  return s;
}

}  // namespace culprit::analysis::why_detail
