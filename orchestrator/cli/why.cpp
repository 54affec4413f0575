// `culprit why BASELINE [CANDIDATE]`: why a kernel is slower, from two Nsight Compute CSV
// exports (or one, placed on its roofline), without a store.
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>

#include "culprit/analysis/why.hpp"
#include "culprit/analysis/why_telemetry.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/peaks.hpp"
#include "culprit/report/why_report.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct WhyArgs {
  CommonOptions common;
  std::string baseline, candidate, peaks, device, precision = "bf16", kernel;
  std::optional<double> flops, ideal_bytes, excess_ms;
  double launches_per_step = 1.0;
  std::string telemetry, telemetry_format = "dcgm", gpu_rank;
  std::optional<int> rank;
};

analysis::WhyPeaks peaks_of(const WhyArgs& a) {
  if (!a.peaks.empty() && !a.device.empty()) {
    throw UsageError("--peaks and --device both name the peaks: pass one");
  }
  if (!a.peaks.empty()) return analysis::peaks_from(importers::read_peaks(a.peaks));
  if (!a.device.empty()) return analysis::device_peaks(a.device, a.precision);
  return {};
}

// A count or size the verdict divides by or scales with: a positive finite number (CLI11 reads
// "nan" and "inf" as numbers).
void require_positive(const std::optional<double>& v, const char* option) {
  if (v && !(std::isfinite(*v) && *v > 0)) {
    throw UsageError(fmt::format("{} must be a positive finite number, not {}", option, *v));
  }
}

void why(const WhyArgs& a) {
  require_positive(a.launches_per_step, "--launches-per-step");
  require_positive(a.flops, "--flops");
  require_positive(a.ideal_bytes, "--ideal-bytes");
  if (a.excess_ms && !std::isfinite(*a.excess_ms)) {
    throw UsageError(
        fmt::format("--excess-ms must be a finite number of ms, not {}", *a.excess_ms));
  }
  analysis::WhyOptions o;
  o.peaks = peaks_of(a);
  o.flops = a.flops;
  o.ideal_bytes = a.ideal_bytes;
  o.kernel = a.kernel;
  o.launches_per_step = a.launches_per_step;
  o.blamed_excess_ms = a.excess_ms;
  if (!a.telemetry.empty()) {
    if (!a.rank) throw UsageError("--telemetry needs --rank: the rank the verdict is about");
    const auto series = importers::telemetry::read_telemetry(
        a.telemetry, importers::telemetry::parse_format(a.telemetry_format));
    const auto gpu_rank = analysis::parse_gpu_rank(a.gpu_rank);
    o.telemetry = analysis::clock_evidence(series, *a.rank, gpu_rank);
    if (!o.telemetry) {
      throw UsageError(a.telemetry + ": " +
                       analysis::no_clock_evidence_reason(series, *a.rank, gpu_rank));
    }
  }
  // One file: the candidate alone; two: baseline then candidate.
  const bool alone = a.candidate.empty();
  const analysis::WhyVerdict v =
      analysis::why_of_exports(alone ? "" : a.baseline, alone ? a.baseline : a.candidate, o);
  print(report::why_document(v, a.common.format()));
}

}  // namespace

void register_why(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand(
      "why", "Why a kernel is slower: two ncu CSV exports (or one) against the roofline");
  auto a = std::make_shared<WhyArgs>();
  command->add_option("BASELINE", a->baseline, "ncu CSV export of the baseline (or the only one)")
      ->required();
  command->add_option("CANDIDATE", a->candidate, "ncu CSV export of the candidate");
  command->add_option("--peaks", a->peaks, "Peaks file (label,peak_flops,peak_bandwidth)");
  command->add_option("--device", a->device, "Peaks from the device table: A100|H100|H200|B200");
  command->add_option("--precision", a->precision,
                      "With --device: fp32|tf32|bf16|fp16|fp8 (default bf16)");
  command->add_option("--flops", a->flops, "FLOPs of one launch (the shape's), when ncu has none");
  command->add_option("--ideal-bytes", a->ideal_bytes, "The shape's ideal DRAM bytes per launch");
  command->add_option("--kernel", a->kernel, "Regex choosing the kernel (default: largest change)");
  command->add_option("--launches-per-step", a->launches_per_step,
                      "Launches of the kernel per step, for the reconciliation (default 1)");
  command->add_option("--excess-ms", a->excess_ms, "The blamed excess to reconcile with, in ms");
  command->add_option("--telemetry", a->telemetry,
                      "GPU telemetry of the job (clock_throttling: --rank against its peers)");
  command->add_option("--telemetry-format", a->telemetry_format,
                      "dcgm (exporter text or dmon) | nvidia-smi | nvml-csv (default dcgm)");
  command->add_option("--rank", a->rank, "With --telemetry: the blamed rank");
  command->add_option("--gpu-rank", a->gpu_rank,
                      "With --telemetry: GPU=RANK,... (default: GPU index = rank)");
  add_json_flag(*command, a->common);
  command->callback([&outcome, a] {
    why(*a);
    outcome.exit_code = exit_code::kOk;
  });
}

}  // namespace culprit::cli
