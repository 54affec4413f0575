#pragma once
// Why a kernel is slow: its Nsight Compute counters (and GPU telemetry) beside its roofline,
// candidate against baseline, with every figure's numerator and denominator, and a verdict on
// each explanation (supported, refuted, undecided) by documented thresholds
// (docs/methodology.md, "Why: counters and telemetry"). Pure: no store, no files.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "culprit/importers/ncu.hpp"
#include "culprit/importers/ncu_figures.hpp"
#include "culprit/importers/peaks.hpp"

namespace culprit::analysis {

// The thresholds of the rules (the same kind of fixed cut-offs as Nsight Compute's own
// speed-of-light rules, which call a unit busy above 60 % and near its peak above 80 %).
namespace why_rule {
inline constexpr double kSlower = 1.05;       // duration ratio that counts as a slowdown
inline constexpr double kProportional = 0.5;  // bytes grew >= half as much as time did
inline constexpr double kBusyPct = 60.0;      // a unit at >= 60 % of its peak is busy
inline constexpr double kRoofPct = 80.0;      // >= 80 % of a peak: at that roof
inline constexpr double kFell = 0.95;         // a rate fell: candidate/baseline <= 0.95
inline constexpr double kFellPoints = 5.0;    // a percentage fell by >= 5 points
inline constexpr double kThrottled = 0.90;    // SM clock <= 90 % of the reference
inline constexpr double kSameClock = 0.97;    // SM clock >= 97 %: not throttled
}  // namespace why_rule

enum class WhyStatus { kSupported, kRefuted, kUndecided };
const char* why_status_name(WhyStatus status);

// The launches of one kernel in one export (averaged per launch).
struct KernelCounters {
  std::string file;
  std::string kernel;
  std::vector<std::int64_t> launch_ids;
  std::vector<importers::ncu::KernelFigures> launches;
};
std::vector<KernelCounters> group_kernels(const importers::ncu::Report& report);

struct WhyPeaks {
  double flops_per_s = 0.0;  // 0: unknown
  double bytes_per_s = 0.0;
  std::string source;
};
WhyPeaks peaks_from(const importers::Peaks& p);
// The device table (A100, H100, H200, B200; docs/methodology.md cites each figure's source).
// `precision`: fp32 | tf32 | bf16 | fp16 | fp8. UsageError for an unknown device or precision.
WhyPeaks device_peaks(const std::string& device, const std::string& precision);

// One figure: value = numerator / denominator (x 100 for %), null when either is unknown.
struct WhyFigure {
  std::string metric;
  std::optional<double> value, numerator, denominator;
  std::string unit;
  std::string source;  // what the numerator and denominator are
  std::string note;    // why it is n/a, or how to read it
};

struct WhySide {
  std::string file, kernel;
  std::vector<std::int64_t> launch_ids;
  std::vector<WhyFigure> figures;
  std::string roof;  // memory roof | compute roof | below the roofs | n/a: ...
};

struct WhyEvidence {
  std::string metric;
  std::optional<double> baseline, candidate;
  std::string numerator, denominator, unit;
};

struct WhyExplanation {
  std::string name;  // hbm_traffic | compute_underuse | clock_throttling | launch_bound |
                     // different_kernel
  WhyStatus status = WhyStatus::kUndecided;
  std::string reason;
  std::vector<WhyEvidence> evidence;
};

struct WhyReconciliation {
  std::optional<double> baseline_ms, candidate_ms;  // ncu duration per launch
  std::optional<double> change_ms;                  // candidate - baseline, per launch
  double launches_per_step = 1.0;
  std::optional<double> counters_ms;       // change x launches per step
  std::optional<double> blamed_excess_ms;  // the decomposition's excess, when known
  std::optional<double> unclassified_ms;   // blamed - counters
  std::string clocks;                      // what the durations can be compared with
};

// Telemetry's view of the blamed rank's SM clock during the slow steps (clock_throttling).
struct ClockEvidence {
  int rank = -1;
  double rank_clock_hz = 0.0;   // median over its samples in the slow steps
  double peers_clock_hz = 0.0;  // median of the other ranks' medians
  std::string metric = "sm_clock";
  int rank_samples = 0;                     // the rank's samples inside the windows
  int peer_samples = 0;                     // the peers' samples inside the windows
  int peers = 0;                            // peers with samples there
  std::string where = "in the slow steps";  // the windows: "in its 3 slow steps (run 12)"
};

// clock_throttling from telemetry alone (rule why_rule::kThrottled / kSameClock); `evidence`
// holds figures already gathered (ncu's clock), the telemetry's is added.
WhyExplanation clock_throttling_of(const ClockEvidence& telemetry,
                                   std::vector<WhyEvidence> evidence = {});

struct WhyOptions {
  WhyPeaks peaks;
  std::optional<double> flops;        // FLOPs of one launch (the shape's), when ncu has none
  std::optional<double> ideal_bytes;  // the shape's ideal DRAM bytes of one launch
  std::string kernel;                 // regex choosing the kernel; empty: the largest change
  double launches_per_step = 1.0;
  std::optional<double> blamed_excess_ms;
  std::optional<ClockEvidence> telemetry;
  std::string flops_source = "the shape's FLOPs (--flops)";
  std::string ideal_bytes_source = "the shape's ideal bytes (--ideal-bytes)";
  std::string no_flops_note = "n/a: no FLOP count";  // the FLOP figures' note without a count
  // How to give a FLOP count, in the roof's n/a.
  std::string no_flops_hint = "pass --flops, or collect sm__sass_thread_inst_executed_op_*";
  // Why telemetry gave no clock evidence although some is attached (clock_throttling's reason).
  std::string telemetry_note;
};

struct WhyVerdict {
  std::string kernel;
  std::optional<WhySide> baseline;  // absent: one export placed on its roofline alone
  WhySide candidate;
  std::vector<WhyExplanation> explanations;
  WhyReconciliation reconciliation;
};

// Pairs the kernels of the two exports (the one named by options.kernel, else by name the one
// whose total duration grew most, else the longest of each) and gives the verdict. `baseline`
// null: the candidate alone (figures, roofline placement, launch_bound).
WhyVerdict why_verdict(const std::vector<KernelCounters>* baseline,
                       const std::vector<KernelCounters>& candidate, const WhyOptions& options);

}  // namespace culprit::analysis

namespace culprit::analysis {

// `culprit why`: reads the ncu exports (importers::ncu::read_ncu) and gives the verdict;
// `baseline_path` empty: the candidate alone.
WhyVerdict why_of_exports(const std::string& baseline_path, const std::string& candidate_path,
                          const WhyOptions& options);

}  // namespace culprit::analysis

namespace culprit::analysis {

// The why block of one explanation of `culprit explain`: the verdict from the counters (and
// telemetry) attached to its runs, when there are any, and the next capture to make.
struct WhyBlock {
  std::optional<WhyVerdict> verdict;
  // From telemetry alone, when it is attached (also without counters): the blamed rank's SM
  // clock in its slow steps against its peers' in the same steps.
  std::optional<WhyExplanation> clock_throttling;
  std::vector<int> slow_steps;  // the candidate run's steps blamed on the culprit's rank
  std::string against;          // what the baseline side is: "baseline run N rank R" | "peers ..."
  std::string next_capture;     // the ncu command for the blamed kernel on the blamed rank
  std::string telemetry_capture;  // the nsys --gpu-metrics-devices form
  // Set when GPU counters and telemetry cannot explain the phase (it ran on the CPU): why, and
  // what tells compute from waiting there. No verdict and no captures then.
  std::string not_applicable;
};

}  // namespace culprit::analysis
